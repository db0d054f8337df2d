import { connect, type Socket } from "node:net";

export interface RawConnection {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves when the server closed the connection (or it failed), with the milliseconds since it opened. */
  closed: Promise<number>;
  isClosed(): boolean;
}

/** A TCP connection to an HTTP server that sends exactly `bytes` and then nothing: a slow or broken client. */
export async function rawConnection(baseUrl: string, bytes: string | Buffer = ""): Promise<RawConnection> {
  const { hostname, port } = new URL(baseUrl);
  const opened = Date.now();
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let text = "";
  let done = false;
  socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
  const closed = new Promise<number>((resolve) => {
    socket.on("error", () => undefined);
    socket.once("close", () => {
      done = true;
      resolve(Date.now() - opened);
    });
  });
  if (bytes.length > 0) socket.write(bytes);
  return { socket, received: () => text, closed, isClosed: () => done };
}

/** Resolves with `promise`, or fails after `ms` with `what` in the message. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The status and JSON body of a raw HTTP/1.1 response. */
export function parseRawResponse(text: string): { status: number; headers: string; body: any } {
  const split = text.indexOf("\r\n\r\n");
  const head = split === -1 ? text : text.slice(0, split);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? NaN);
  const rawBody = split === -1 ? "" : text.slice(split + 4);
  let body: unknown = rawBody;
  try {
    body = JSON.parse(rawBody);
  } catch {
    // left as text: the assertion shows it
  }
  return { status, headers: head, body };
}
