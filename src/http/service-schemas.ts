import { z } from "zod/v4";

import { ENDPOINT_STATES, type EndpointState } from "../chains/evm/endpoint-pool.js";

// What the service says of itself: the networks it serves, its health and its readiness to accept writes. Answers only:
// z.lazy, built on the first /openapi.json, not at start-up (operation-schemas.ts).

export const NetworkList = z.lazy(() =>
  z.object({
    networks: z.array(
      z.object({
        chain: z.string(),
        network: z.string(),
        kind: z.enum(["evm", "bitcoin"]),
        chainId: z.number().int().nonnegative().optional().describe("EVM only"),
        nativeSymbol: z.string(),
        nativeDecimals: z.number().int().nonnegative(),
        simulated: z.boolean(),
        backend: z.string(),
        endpoint: z.string(),
        note: z.string().optional(),
        rollup: z
          .enum(["op-stack", "arbitrum"])
          .optional()
          .describe("op-stack: the L1 data fee counts in the funds check; arbitrum: the node's gas estimate covers L1"),
        declaredIn: z.string().optional().describe("A chain declared in configuration: tokenService.chains or TOKEN_SERVICE_CHAINS"),
      }),
    ),
  }),
);

const health = () =>
  z.object({
    status: z.enum(["ok", "degraded"]),
    backends: z.record(
      z.string(),
      z.object({
        ready: z.boolean().nullable().describe("null when not probed (public Esplora APIs are not sent health-check traffic)"),
        simulated: z.boolean().optional().describe("With an API key"),
        detail: z.string().optional().describe("With an API key: where the backend is and what the probe found"),
        endpoints: z
          .array(
            z.object({
              endpoint: z.string().describe("The endpoint's host (never its credentials or path)"),
              state: z
                .enum(ENDPOINT_STATES as [EndpointState, ...EndpointState[]])
                .describe(
                  "up: it answered; failing: its last request failed; down: skipped for a cool-down after failures in a row; half-open: the cool-down is over, the next request tries it; wrong-chain: it serves another chain, never used; unknown: not asked yet",
                ),
              detail: z.string().optional().describe("Why it is not up"),
              block: z.number().int().optional().describe("The latest block it reported"),
            }),
          )
          .optional()
          .describe("With an API key, on a live EVM pair: its endpoints in the order requests try them, each probed"),
      }),
    ),
  });

export const Health = z.lazy(health);

export const Readiness = z.lazy(() =>
  health().extend({
    ready: z.boolean(),
    reasons: z.array(z.string()).describe("What keeps writes from being accepted, `<backend>: <why>` (keyless: `<backend>: not ready`)"),
  }),
);
