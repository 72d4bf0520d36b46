import { describe, expect, it } from "vitest";
import { NoFreeSlot, workSlots } from "../../core/shared/work-slots.js";

describe("workSlots", () => {
  it("runs at most its number of tasks at once, the rest in the order they came", async () => {
    const { run } = workSlots(2);
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

  it("gives the slot back while a part of a task runs aside, and takes its turn again after", async () => {
    const { run } = workSlots(1);
    const order: string[] = [];
    let partDone: (() => void) | undefined;
    const part = new Promise<void>((resolve) => {
      partDone = resolve;
    });
    const first = run(async (aside) => {
      await aside(() => part);
      order.push("first, after its part");
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    // The slot is free while the part waits: other work runs meanwhile.
    await run(() => Promise.resolve(order.push("second")));
    const third = run(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push("third");
    });
    partDone?.();
    await Promise.all([first, third]);
    // Back in line behind the work that took the slot meanwhile.
    expect(order).toEqual(["second", "third", "first, after its part"]);
  });

  it("frees the slot of a task that fails", async () => {
    const { run } = workSlots(1);
    await expect(run(() => Promise.reject(new Error("render failed")))).rejects.toThrow();
    await expect(run(() => Promise.resolve("next"))).resolves.toBe("next");
  });

  it("holds a slot until it is released, once, however often release is called", async () => {
    const { acquire } = workSlots(1);
    const first = await acquire();
    let second: (() => void) | undefined;
    const waiting = acquire().then((release) => (second = release));
    let third: (() => void) | undefined;
    const alsoWaiting = acquire().then((release) => (third = release));
    await new Promise((resolve) => setImmediate(resolve));
    expect(second).toBeUndefined();

    first();
    first();
    await waiting;
    await new Promise((resolve) => setImmediate(resolve));
    // A second release of the first slot did not let the third in beside the second.
    expect(third).toBeUndefined();
    second?.();
    await alsoWaiting;
    expect(third).toBeDefined();
  });

  it("hands a freed slot on in a later turn of the event loop, not in the releasing one", async () => {
    const { acquire } = workSlots(1);
    const first = await acquire();
    const order: string[] = [];
    const waiting = acquire().then((release) => {
      order.push("next turn");
      return release;
    });
    // Work already waiting for the loop (an answer compressed and ready to send) goes first.
    setImmediate(() => {
      order.push("waiting work");
    });
    first();
    // However long a chain of promises the releasing work runs on, the next one has not started.
    for (let step = 0; step < 50; step += 1) await Promise.resolve();
    expect(order).toEqual([]);
    (await waiting)();
    expect(order).toEqual(["waiting work", "next turn"]);
  });

  it("passes on a turn whose caller left after it was handed over, before it started", async () => {
    const { acquire } = workSlots(1);
    const first = await acquire();
    const leaving = new AbortController();
    const gone = acquire(leaving.signal);
    first();
    leaving.abort(new Error("client left"));
    await expect(gone).rejects.toThrow("client left");
    const next = await Promise.race([
      acquire(),
      new Promise((resolve) => setTimeout(resolve, 200, "stuck")),
    ]);
    expect(next).toBeTypeOf("function");
  });
});

describe("workSlots with a line of limited length", () => {
  it("refuses work past maxWaiting waiting, and takes it again once the line moves", async () => {
    const { acquire } = workSlots(1, { maxWaiting: 2 });
    const first = await acquire();
    const second = acquire();
    const third = acquire();
    await expect(acquire()).rejects.toBeInstanceOf(NoFreeSlot);
    first();
    (await second)();
    const fourth = acquire();
    (await third)();
    (await fourth)();
  });

  it("drops a waiter whose caller left, so the next one gets its turn", async () => {
    const { acquire } = workSlots(1, { maxWaiting: 1 });
    const first = await acquire();
    const leaving = new AbortController();
    const gone = acquire(leaving.signal);
    leaving.abort(new Error("client left"));
    await expect(gone).rejects.toThrow("client left");
    // Its place in the line is free again, and releasing the slot does not hand it to nobody.
    const next = acquire();
    first();
    const release = await next;
    release();
    // A caller gone before its turn starts is refused, and the slot it was given is free again.
    await expect(acquire(AbortSignal.abort(new Error("already gone")))).rejects.toThrow(
      "already gone",
    );
    await expect(acquire()).resolves.toBeTypeOf("function");
  });
});
