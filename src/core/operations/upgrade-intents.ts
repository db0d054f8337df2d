import type { EvmChain } from "../../chains/evm/chain.js";
import type { FirstUseCompiler } from "../../chains/evm/variants/first-use-compiler.js";
import { CREATE2_FACTORY, preflightCreate2 } from "../../chains/evm/write/create2.js";
import { currentImplementation, implementationDeployment, preflightUpgrader, upgradeCall } from "../../chains/evm/write/upgrade.js";
import { parseEvmAddress } from "../../domain/addresses.js";
import { requireEvm, type ChainRegistry } from "../../domain/chains.js";
import { ErrorCode, TokenServiceError, invalidArgument } from "../../domain/errors.js";
import { variantName, type Upgradeable, type Variant } from "../../domain/token-options.js";
import type { Unsigned } from "../../domain/requests.js";
import type { AcceptedWrite } from "../../domain/admin-requests.js";
import { upgradeVariantOf, type ImplementationRequest, type UpgradeCallRequest, type UpgradeResult } from "../../domain/upgrades.js";
import { sentAnswer, type WriteIntent } from "./intents.js";

// The two writes an upgrade is made of (docs/decisions/0066-upgrade-write.md), each one transaction and one record of
// the one pipeline: `deployImplementation` (the new implementation through the CREATE2 factory, at salt zero) and
// `upgrade` (the proxy pointed at it). core/upgrades.ts checks the upgrade and runs upgrades-core before either is
// made; these hold what the chain must be like when each is signed.

/** What both take: the pair, the sender, the variant the options make, its compiled implementation. */
async function implementationOf(request: Unsigned<ImplementationRequest>, chains: ChainRegistry, variants: FirstUseCompiler, what: string) {
  const pair = requireEvm(chains.resolve(request.chain, request.network), what);
  const sender = parseEvmAddress(request.sender, "sender");
  const variant = upgradeVariantOf(request.type, request.options);
  if (variant.upgradeable === undefined)
    throw invalidArgument("options.upgradeable", 'options.upgradeable must be "uups" or "transparent"');
  const artifact = await variants.artifact(variant);
  return { pair, sender, variant: variant as Variant & { upgradeable: Upgradeable }, ...implementationDeployment(artifact.bytecode) };
}

export interface ImplementationResult extends AcceptedWrite {
  type: string;
  variant: string;
}

/** The implementation of the options' variant, deployed by the CREATE2 factory: refused if code is already there. */
export async function implementationIntent(
  request: Unsigned<ImplementationRequest>,
  chains: ChainRegistry,
  variants: FirstUseCompiler,
): Promise<WriteIntent<ImplementationResult>> {
  const { pair, sender, variant, address, data } = await implementationOf(request, chains, variants, "an implementation deployment");
  const fields = { type: variant.kind, contractAddress: address, variant: variantName(variant) };
  return {
    kind: "deployImplementation",
    command: { pair, sender },
    transaction: { to: CREATE2_FACTORY, data, gasShape: `CREATE2 implementation ${fields.variant}` },
    record: () => ({ tokenType: variant.kind, params: { contractAddress: address, variant: fields.variant }, contractAddress: address }),
    preflight: (chain) => preflightCreate2(chain, address),
    answer: (sent, chain) => sentAnswer(pair, sent, chain, { ...fields, sender }),
  };
}

/**
 * The proxy pointed at the options' implementation, which must be deployed by now: the sender's right to upgrade is
 * simulated with it (NOT_UPGRADER), the implementation it replaces read from the proxy's slot for the record.
 */
export async function upgradeIntent(
  request: Unsigned<UpgradeCallRequest>,
  chains: ChainRegistry,
  variants: FirstUseCompiler,
): Promise<WriteIntent<UpgradeResult>> {
  const { pair, sender, variant, address } = await implementationOf(request, chains, variants, "an upgrade");
  const proxy = parseEvmAddress(request.contractAddress, "contractAddress");
  const call = upgradeCall(variant.upgradeable, proxy, address);
  // The record's (and the answer's) fields; `previousImplementation` is read by the preflight, just before signing.
  const fields = {
    type: variant.kind,
    contractAddress: proxy,
    upgradeable: variant.upgradeable,
    variant: variantName(variant),
    options: request.options,
    implementation: { address, operationId: request.implementationOperationId },
    previousImplementation: "",
  };
  return {
    kind: "upgrade",
    command: { pair, sender },
    transaction: { ...call, gasShape: `upgrade ${variant.upgradeable}` },
    record: () => ({ tokenType: variant.kind, params: { ...fields }, contractAddress: proxy }),
    preflight: async (chain: EvmChain) => {
      const previous = await currentImplementation(chain, proxy);
      if (previous === address) {
        throw new TokenServiceError(ErrorCode.NOTHING_TO_UPGRADE, `${proxy} already runs ${address}; nothing was signed or sent`, {
          field: "options",
          details: { implementation: address, variant: fields.variant },
        });
      }
      fields.previousImplementation = previous;
      await preflightUpgrader(chain, variant.upgradeable, proxy, address, sender);
    },
    answer: (sent, chain) => sentAnswer(pair, sent, chain, { ...fields, sender }) as UpgradeResult,
  };
}
