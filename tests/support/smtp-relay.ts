import net from "node:net";

export interface Accepted {
  messageId: string;
  to: string;
  /** The message as it came: headers and body. */
  raw: string;
}

/**
 * A small SMTP relay of a test's own that counts what it accepted. It accepts mail (250 after the data), or, once `stallAfter` mails are accepted,
 * takes the next one's data and never answers: the sender is left waiting, mid-send.
 */
export async function startRelay() {
  const relay = {
    accepted: [] as Accepted[],
    stalled: [] as Accepted[],
    stallAfter: Infinity,
    /** How many mails to refuse next (451, try again later) before accepting again. */
    refuse: 0,
    refused: [] as Accepted[],
    /** Addresses refused for good (550, the mailbox does not exist). */
    bounce: new Set<string>(),
    bounced: [] as Accepted[],
    acceptDelayMs: 0,
    port: 0,
    close: () => Promise.resolve(),
  };
  const sockets = new Set<net.Socket>();
  /** Accepted, their 250 still on its delay: counted, so senders side by side stall at the mark. */
  let accepting = 0;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    socket.setEncoding("utf8");
    let buffer = "";
    let inData = false;
    let to = "";
    socket.write("220 test relay ESMTP\r\n");
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      for (;;) {
        if (inData) {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end === -1) return;
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          const mail = {
            messageId: /^Message-ID:\s*(<[^>]+>)/im.exec(message)?.[1] ?? "",
            to,
            raw: message,
          };
          if (relay.accepted.length + accepting >= relay.stallAfter) {
            relay.stalled.push(mail);
            return;
          }
          if (relay.bounce.has(to)) {
            relay.bounced.push(mail);
            socket.write("550 5.1.1 no such mailbox\r\n");
            continue;
          }
          if (relay.refuse > 0) {
            relay.refuse -= 1;
            relay.refused.push(mail);
            socket.write("451 4.3.0 try again later\r\n");
            continue;
          }
          accepting += 1;
          setTimeout(() => {
            accepting -= 1;
            relay.accepted.push(mail);
            socket.write("250 2.0.0 queued\r\n");
          }, relay.acceptDelayMs);
          continue;
        }
        const end = buffer.indexOf("\r\n");
        if (end === -1) return;
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === "RCPT") to = /<([^>]*)>/.exec(line)?.[1] ?? "";
        if (verb === "DATA") {
          inData = true;
          socket.write("354 go ahead\r\n");
        } else if (verb === "QUIT") {
          socket.end("221 bye\r\n");
        } else {
          socket.write(verb === "EHLO" ? "250 test relay\r\n" : "250 OK\r\n");
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  relay.port = typeof address === "object" && address ? address.port : 0;
  relay.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return relay;
}
