import { parentPort } from "node:worker_threads";
import { DomainError } from "../shared/errors.js";
import { renderMarkdownBody, type RenderedBody, type RenderOptions } from "./body.js";

/** A body to render, and whether its code blocks are highlighted. */
export interface RenderJob {
  source: string;
  options: RenderOptions;
  highlight: boolean;
}

/** The rendering, a refusal (a script in the body: 400) or a failure of the renderer itself. */
export type RenderAnswer = { rendered: RenderedBody } | { refused: string } | { error: string };

function render({ source, options, highlight }: RenderJob): RenderAnswer {
  try {
    return { rendered: renderMarkdownBody(source, { ...options, highlight }) };
  } catch (error) {
    if (error instanceof DomainError) return { refused: error.message };
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

// The render thread (render-thread.ts): the renderer is loaded and warmed before the first job,
// so no render's budget pays for it.
if (parentPort) {
  const port = parentPort;
  render({
    source: "# Ready\n\n```js\nready()\n```",
    options: { followLinks: false, imageBases: [] },
    highlight: true,
  });
  port.on("message", (job: RenderJob) => {
    port.postMessage(render(job));
  });
  port.postMessage("ready");
}
