import type { Logger } from "pino";

import type { TokenService } from "../service.js";
import type { Store } from "./store/types.js";

/** What every route handler may use: the core, the store and the settings. */
export interface ServerContext {
  service: TokenService;
  store: Store;
  logger: Logger;
  /** How long `wait=mined` waits before answering 202 with the pending status. */
  waitTimeoutMs: number;
  /** Watches a broadcast transaction until mined and updates its record. */
  trackOperation(operationId: string, chain: string, network: string, transactionHash: string): void;
}
