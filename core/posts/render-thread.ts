import { contentMessages } from "../../contract/content.js";
import { Worker } from "node:worker_threads";
import { invalid, unavailable } from "../shared/errors.js";
import { NoFreeSlot, workSlots } from "../shared/work-slots.js";
import type { RenderedBody, RenderOptions } from "./body.js";
import type { RenderAnswer, RenderJob } from "./render-worker.js";

/**
 * How long one Markdown render may take on the render thread. Bodies people write render in 1-20
 * ms; the highlighter is quadratic on some shapes of code (a long run of digits or of one
 * identifier, C# with many short words) and took 2-3 s for some 20,000-character bodies. Past the
 * budget the thread is stopped and the body rendered again with code left plain; past it again,
 * the body is refused (400). The cost is the render thread's, never the one that answers requests.
 */
export const RENDER_BUDGET_MS = 750;
/** A render thread left unused this long is stopped (~25 MB); the next write starts another. */
const RENDER_THREAD_IDLE_MS = 60_000;
/** Writers waiting for the render thread; past this many, a save answers 503 at once. */
const RENDERS_WAITING_MAX = 32;

const busyMessage = "Too many posts are being saved just now, please try again in a moment";

/** The render thread did not answer within its budget and was stopped. */
class OverBudget extends Error {
  constructor() {
    super(`A Markdown render took longer than ${String(RENDER_BUDGET_MS)} ms`);
    this.name = "OverBudget";
  }
}

/**
 * The render thread's heap: a body of 20,000 characters renders in a few MB, and a small young
 * generation keeps the thread's share of the process's memory small (V8's default lets it grow
 * by tens of MB between collections).
 */
const RENDER_THREAD_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 128 };

/**
 * The worker's entry beside this module: the build's JavaScript, or (in tests and `npm run dev`,
 * which run the TypeScript sources) the TypeScript file loaded through tsx, a dev dependency.
 */
function startWorker() {
  const fromSources = import.meta.url.endsWith(".ts");
  const entry = new URL(`./render-worker.${fromSources ? "ts" : "js"}`, import.meta.url);
  if (!fromSources) return new Worker(entry, { resourceLimits: RENDER_THREAD_LIMITS });
  const load = `import("tsx/esm/api").then(({ tsImport }) => tsImport(${JSON.stringify(
    entry.href,
  )}, ${JSON.stringify(import.meta.url)}))`;
  return new Worker(load, { eval: true, resourceLimits: RENDER_THREAD_LIMITS });
}

/** One worker, started at the first render and again after it was stopped or died. */
interface Thread {
  worker: Worker;
  /** Settles when the worker has loaded the renderer (a render's budget starts after that). */
  ready: Promise<void>;
  /** The render in progress, told its answer or the worker's end. */
  current?: { resolve: (answer: RenderAnswer) => void; reject: (error: Error) => void };
  /** Set once it is being stopped or has died: the next render starts another. */
  stopped: boolean;
}

function startThread(): Thread {
  const worker = startWorker();
  // Idle, it does not keep the process alive; a render in progress does (below).
  worker.unref();
  const thread: Thread = {
    worker,
    stopped: false,
    ready: new Promise((resolve, reject) => {
      worker.once("message", () => {
        resolve();
      });
      worker.once("error", reject);
    }),
  };
  worker.on("message", (answer: RenderAnswer | "ready") => {
    if (answer !== "ready") thread.current?.resolve(answer);
  });
  const gone = (error: Error) => {
    thread.stopped = true;
    thread.current?.reject(error);
  };
  worker.on("error", gone);
  worker.on("exit", () => {
    gone(new Error("The render thread stopped"));
  });
  // A worker that failed to start is not waited on: the next render starts another.
  thread.ready.catch(() => undefined);
  return thread;
}

/** One render on the thread, stopping it (and so the render) past the budget. */
async function renderOn(thread: Thread, job: RenderJob): Promise<RenderAnswer> {
  await thread.ready;
  return new Promise<RenderAnswer>((resolve, reject) => {
    const timer = setTimeout(() => {
      thread.stopped = true;
      reject(new OverBudget());
      void thread.worker.terminate();
    }, RENDER_BUDGET_MS);
    const settle = () => {
      clearTimeout(timer);
      thread.current = undefined;
      thread.worker.unref();
    };
    thread.current = {
      resolve: (answer) => {
        settle();
        resolve(answer);
      },
      reject: (error) => {
        settle();
        reject(error);
      },
    };
    thread.worker.ref();
    thread.worker.postMessage(job);
  });
}

export interface RenderThread {
  /**
   * Renders a Markdown body on the thread, so no body, however it is shaped, holds up the thread
   * that serves every request. A body whose code blocks cannot be highlighted within the budget
   * gets them plain; one that cannot be rendered at all within it is refused (400 naming
   * `description`), and so is a script in it (as renderMarkdownBody refuses it).
   */
  render(source: string, options: RenderOptions): Promise<RenderedBody>;
  /** Stops the thread (the server is closing); a later render starts another. */
  close(): Promise<void>;
}

/** A render thread of the host's, its worker started at the first render. */
export function renderThread(): RenderThread {
  let thread: Thread | undefined;
  let idle: NodeJS.Timeout | undefined;
  const running = () => {
    clearTimeout(idle);
    if (!thread || thread.stopped) thread = startThread();
    return thread;
  };
  // Writing comes in bursts: a thread nobody has asked for a while gives its memory back.
  const stopWhenIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      const current = thread;
      thread = undefined;
      void current?.worker.terminate();
    }, RENDER_THREAD_IDLE_MS);
    idle.unref();
  };
  // One render at a time: the thread renders one after another anyway, and a render's budget
  // must count its own time, not its wait.
  const rendering = workSlots(1, { maxWaiting: RENDERS_WAITING_MAX });

  async function render(source: string, options: RenderOptions) {
    const answer = await rendering
      .run(async () => {
        try {
          return await renderOn(running(), { source, options, highlight: true });
        } catch (error) {
          if (!(error instanceof OverBudget)) throw error;
          return await renderOn(running(), { source, options, highlight: false });
        } finally {
          stopWhenIdle();
        }
      })
      .catch((error: unknown) => {
        if (error instanceof NoFreeSlot) throw unavailable(busyMessage);
        if (error instanceof OverBudget) {
          const message = contentMessages.descriptionTooComplex;
          throw invalid(message, { description: message });
        }
        throw error;
      });
    if ("refused" in answer) throw invalid(answer.refused, { description: answer.refused });
    if ("error" in answer) throw new Error(`The render thread failed: ${answer.error}`);
    return answer.rendered;
  }

  return {
    render,
    async close() {
      clearTimeout(idle);
      const current = thread;
      thread = undefined;
      await current?.worker.terminate();
    },
  };
}
