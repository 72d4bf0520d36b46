import { describe, expect, it } from "vitest";
import { terminalProgress } from "../../core/porting/progress.js";

function fakeStream(isTTY: boolean) {
  const written: string[] = [];
  const stream = {
    isTTY,
    write: (text: string) => {
      written.push(text);
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  return { stream, written };
}

describe("the progress bar of long imports and exports", () => {
  it("draws a bar with the count on a terminal, and ends its line", () => {
    const { stream, written } = fakeStream(true);
    const progress = terminalProgress(stream);
    progress.start("images", 4);
    progress.tick(2);
    progress.done();
    expect(written[0]).toContain("images [..............................] 0/4");
    expect(written.at(-2)).toContain("images [###############...............] 2/4");
    expect(written.at(-1)).toBe("\n");
  });

  it("draws nothing when the output is not a terminal (a pipe, a log, a test)", () => {
    const { stream, written } = fakeStream(false);
    const progress = terminalProgress(stream);
    progress.start("posts", 10);
    progress.tick();
    progress.done();
    expect(written).toEqual([]);
  });
});
