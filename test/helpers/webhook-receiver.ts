import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

import { checkWebhookEventAgainstOpenApi } from "./openapi-responses.js";

export interface ReceivedEvent {
  headers: IncomingHttpHeaders;
  /** The raw body, as the signature covers it. */
  body: string;
  json: { id: string; type: string; createdAt: string; data: { id: string; status: string; [key: string]: unknown } };
  at: number;
}

export type ReceiverMode = "ok" | "error" | "hang";

/** A real HTTP server on 127.0.0.1 that records every POST it gets and answers per its mode. */
export class WebhookReceiver {
  readonly received: ReceivedEvent[] = [];
  /** Events that do not match /openapi.json's `webhooks`: `close()` fails with them. */
  readonly undocumented: string[] = [];
  mode: ReceiverMode;
  private server: Server | undefined;
  private readonly hanging = new Set<ServerResponse>();

  /** `checkEvents: false` for tests that post bodies of their own, not the service's events. */
  constructor(
    mode: ReceiverMode = "ok",
    private readonly options: { checkEvents: boolean } = { checkEvents: true },
  ) {
    this.mode = mode;
  }

  /** Listens on `port` (default: any free one); answers its URL. */
  async listen(port = 0): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const json = JSON.parse(body) as ReceivedEvent["json"];
        this.received.push({ headers: request.headers, body, json, at: Date.now() });
        try {
          if (this.options.checkEvents) checkWebhookEventAgainstOpenApi(json);
        } catch (error) {
          this.undocumented.push((error as Error).message);
        }
        if (this.mode === "hang") return void this.hanging.add(response);
        response.writeHead(this.mode === "ok" ? 204 : 500).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, "127.0.0.1", resolve));
    return this.url();
  }

  url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/hooks`;
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
    if (this.undocumented.length > 0) throw new Error(`the receiver got undocumented events: ${this.undocumented.join("\n")}`);
  }
}
