import type { ChainRegistry } from "../domain/chains.js";

/**
 * The request fields `chain` and `network` described from a registry: the schemas (src/http/schemas.ts) with the
 * built-in chains, and the document a service serves (src/http/openapi.ts) with its own, declared chains included.
 */

export function chainFieldDescription(chains: ChainRegistry, declarable: boolean): string {
  const more = declarable ? ", or an EVM chain the service declares (`GET /api/v1/networks` lists every pair it serves)" : "";
  return `One of: ${chains.names.join(", ")}${more}`;
}

export function networkFieldDescription(chains: ChainRegistry): string {
  return chains.names
    .map((chain) => {
      const aliases = Object.entries(chains.aliases(chain)).map(([alias, network]) => `${alias} (= ${network})`);
      const networks = chains
        .networkNames(chain)
        .map((network) => (chain === "bitcoin" && network === "testnet" ? "testnet (testnet4)" : network));
      return `${chain}: ${[...networks, ...aliases].join(", ")}`;
    })
    .join("; ");
}

/** Every network name a request may give, aliases included. */
export function networkFieldValues(chains: ChainRegistry): string[] {
  return [...new Set(chains.names.flatMap((chain) => [...chains.networkNames(chain), ...Object.keys(chains.aliases(chain))]))];
}
