import type { EvmChains } from "../../chains/evm/chains-registry.js";
import type { EvmNetworkInfo } from "../../chains/evm/chain.js";
import { EvmBlockSource } from "../../chains/evm/follow/block-source.js";
import type { NetworkInfo } from "../../domain/chains.js";
import type { NotificationSources } from "./notifications.js";

/**
 * The least a scan waits between looks at an idle pair: a simulated chain polls every 50 ms for its own receipts, which
 * would make an idle scan read its subscriptions twenty times a second.
 */
const MIN_SCAN_POLL_MS = 250;

/** The scans' view of the EVM pairs: each pair's chain (opened on first use), read through its block source. */
export function notificationSources(evm: EvmChains): NotificationSources {
  const polls = new Map<string, number>();
  return {
    async sourceOf(info: NetworkInfo) {
      const chain = await evm.get(info as EvmNetworkInfo);
      polls.set(`${info.chain}/${info.network}`, Math.max(chain.pollingIntervalMs, MIN_SCAN_POLL_MS));
      return new EvmBlockSource(chain);
    },
    pollMs: (info) => polls.get(`${info.chain}/${info.network}`) ?? 1_000,
  };
}
