import { Writable } from "node:stream";
import { createElement, Fragment } from "react";
import { renderToPipeableStream, renderToString } from "react-dom/server";
import { ServerRouter, type AppLoadContext, type EntryContext } from "react-router";
import { ComposingContext, ShellContext } from "./features/viewer/islands.js";
import type { RecordedIsland } from "../contract/site-host.js";

export const streamTimeout = 10_000;

/**
 * Renders the whole page (onAllReady) into one buffer: pages are small and their data is loaded
 * before rendering starts, so streaming would only add per-chunk work (and per-chunk compression),
 * and the host needs the whole body to validate, share and hash it. Every inline script carries the
 * request's CSP nonce.
 */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: AppLoadContext,
) {
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    // The timer holds the whole render (its data, its tree) until it fires, so it is cleared the
    // moment the page is done: left to run, every page ever rendered stayed in memory for 11 s
    // (hundreds of MB at a few hundred pages a second).
    let timer: NodeJS.Timeout | undefined;
    const render = { finished: false };
    const finish = () => {
      render.finished = true;
      clearTimeout(timer);
    };
    const { pipe, abort } = renderToPipeableStream(
      // Scripts carry the nonce; stylesheets need none (root renders <Links nonce="">, since a
      // nonce on a link is blanked by the browser and hydration would see a mismatch).
      <ShellContext.Provider value={loadContext.shell ?? null}>
        <ServerRouter context={routerContext} url={request.url} nonce={loadContext.cspNonce} />
      </ShellContext.Provider>,
      {
        nonce: { script: loadContext.cspNonce },
        onAllReady() {
          shellRendered = true;
          const chunks: Buffer[] = [];
          const body = new Writable({
            write(chunk: Buffer, _encoding, done) {
              chunks.push(chunk);
              done();
            },
            final(done) {
              finish();
              responseHeaders.set("Content-Type", "text/html; charset=utf-8");
              resolve(
                new Response(Buffer.concat(chunks), {
                  headers: responseHeaders,
                  status: responseStatusCode,
                }),
              );
              done();
            },
          });
          pipe(body);
        },
        onShellError(error: unknown) {
          finish();
          reject(error instanceof Error ? error : new Error("Render failed"));
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          // Errors after the shell are logged by the host; before it, the promise rejects.
          if (shellRendered) console.error(error);
        },
      },
    );
    // (A page with nothing to wait for may already be done here.)
    if (!render.finished) timer = setTimeout(abort, streamTimeout + 1000);
  });
}

/** Between two islands in their one render: an element no island's escaped content can hold. */
const ISLAND_END = "island-end";

/**
 * The islands of a shell rendered for one viewer (decision 021), in one render (each render has a
 * set-up cost): the HTML to put in each one's marker's place, the same as a render of the whole
 * page for that viewer writes there. An element between them keeps React from joining the text
 * at one's end to the next one's start.
 */
export function renderIslands(
  islands: readonly RecordedIsland[],
  dataOf: (route: string) => unknown,
): string[] {
  // Islands inside a live island (decision 029) find their parts here.
  const html = renderToString(
    <ComposingContext value={dataOf}>
      {islands.map((island, index) => (
        <Fragment key={index}>
          {island.render(dataOf(island.route))}
          {createElement(ISLAND_END)}
        </Fragment>
      ))}
    </ComposingContext>,
  );
  return html.split(`<${ISLAND_END}></${ISLAND_END}>`).slice(0, islands.length);
}
