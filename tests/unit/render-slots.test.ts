import { describe, expect, it } from "vitest";
import { renderSlots } from "../../server/web/render-slots.js";

describe("renderSlots", () => {
  it("runs at most its number of tasks at once, the rest in the order they came", async () => {
    const run = renderSlots(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const task = (n: number) =>
      run(async () => {
        started.push(n);
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
        return n;
      });
    const results = await Promise.all([1, 2, 3, 4, 5].map(task));
    expect(results).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
    expect(started).toEqual([1, 2, 3, 4, 5]);
  });

  it("frees the slot of a task that fails", async () => {
    const run = renderSlots(1);
    await expect(run(() => Promise.reject(new Error("render failed")))).rejects.toThrow();
    await expect(run(() => Promise.resolve("next"))).resolves.toBe("next");
  });
});
