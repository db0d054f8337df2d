import type { BitcoinBackends } from "../../chains/bitcoin/backend.js";
import type { EvmChains } from "../../chains/evm/chains-registry.js";
import type { NetworkInfo } from "../../domain/chains.js";
import { bitcoinSources } from "./bitcoin-sources.js";
import { evmSources } from "./evm-sources.js";
import type { NotificationSources } from "./notifications.js";

/** The scans' view of every pair: an EVM pair through its chain (evm-sources.ts), a Bitcoin one through its backend. */
export function notificationSources(evm: EvmChains, bitcoin: BitcoinBackends): NotificationSources {
  const evmSide = evmSources(evm);
  const bitcoinSide = bitcoinSources(bitcoin);
  const sideOf = (info: NetworkInfo) => (info.kind === "bitcoin" ? bitcoinSide : evmSide);
  return {
    sourceOf: (info) => sideOf(info).sourceOf(info),
    pollMs: (info) => sideOf(info).pollMs(info),
  };
}
