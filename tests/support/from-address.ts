import http from "node:http";

let next = 0;

/**
 * A loopback address of its own (127.x.y.z; Linux answers the whole 127/8 block), so a test can
 * play callers at different addresses. Random per run: counters kept in Redis outlive a run.
 */
export function loopbackAddress() {
  next += 1;
  const byte = () => String(1 + Math.floor(Math.random() * 250));
  return `127.${byte()}.${byte()}.${String(2 + (next % 250))}`;
}

export interface AddressedReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: { message?: string } & Record<string, unknown>;
}

/** POSTs JSON to the server from `localAddress`, which is the address the server sees. */
export function postJsonFrom(
  baseUrl: string,
  path: string,
  body: unknown,
  localAddress: string,
): Promise<AddressedReply> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      new URL(path, baseUrl),
      {
        method: "POST",
        localAddress,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(payload),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: (text ? JSON.parse(text) : {}) as AddressedReply["body"],
          });
        });
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}
