import { concat, getCreate2Address, keccak256 } from "ethers";

import { ErrorCode, TokenServiceError } from "../../../domain/errors.js";
import type { EvmChain } from "../chain.js";
import { translateProviderError } from "../provider-errors.js";
import { waitForTransaction } from "../read/transaction-status.js";

/**
 * The deterministic deployment proxy (github.com/Arachnid/deterministic-deployment-proxy): called with a 32-byte salt
 * followed by creation code, it deploys the code with CREATE2 and reverts if that fails. It lives at this address on
 * nearly every EVM chain, because it was deployed by a transaction signed for no chain id, from a key nobody holds.
 */
export const CREATE2_FACTORY = "0x4e59b44847b379578588920cA78FbF26c0B4956C";
/** The sender the pre-signed transaction recovers to; the factory is its first (nonce 0) contract. */
export const CREATE2_FACTORY_DEPLOYER = "0x3fAB184622Dc19b6109349B94811493BF2a45362";
/** The pre-signed deployment (legacy, no chain id: EIP-155 replay protection left out on purpose), published with the proxy. */
export const CREATE2_FACTORY_DEPLOYMENT =
  "0xf8a58085174876e800830186a08080b853604580600e600039806000f350fe7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf31ba02222222222222222222222222222222222222222222222222222222222222222a02222222222222222222222222222222222222222222222222222222222222222";
/** What the deployer must hold to send it: its gas limit (100 000) at its gas price (100 gwei). */
export const CREATE2_FACTORY_DEPLOYMENT_COST = 100_000n * 100_000_000_000n;

/** Where the factory puts `initCode` deployed with `salt`: it depends on nothing else (no sender, no nonce, no chain). */
export function create2Address(salt: string, initCode: string): string {
  return getCreate2Address(CREATE2_FACTORY, salt, keccak256(initCode));
}

/** The factory's calldata: the salt, then the creation code. */
export function create2Calldata(salt: string, initCode: string): string {
  return concat([salt, initCode]);
}

async function codeAt(chain: EvmChain, address: string): Promise<string> {
  try {
    return await chain.provider.getCode(address);
  } catch (error) {
    throw translateProviderError(error, `the ${chain.info.chain}/${chain.info.network} node`);
  }
}

/** Deployments of the factory under way, per chain: concurrent launches wait for the one deployment. */
const deploying = new WeakMap<EvmChain, Promise<void>>();

/**
 * A simulated chain starts without the factory: it is deployed as on any public chain, by funding the deployer and
 * sending the pre-signed transaction, both through the chain's journal (a restart replays them like any other change).
 */
async function deployFactory(chain: EvmChain, fund: NonNullable<EvmChain["fund"]>): Promise<void> {
  if ((await codeAt(chain, CREATE2_FACTORY)) !== "0x") return;
  await fund(CREATE2_FACTORY_DEPLOYER, CREATE2_FACTORY_DEPLOYMENT_COST);
  const hash = await chain.broadcast(CREATE2_FACTORY_DEPLOYMENT).catch((error: unknown) => {
    throw translateProviderError(error, `the ${chain.info.chain}/${chain.info.network} chain`);
  });
  // Mined at once when the chain mines on send; by the next block when it mines on an interval.
  const status = await waitForTransaction(chain, hash, 60_000);
  if (status.status !== "mined" || (await codeAt(chain, CREATE2_FACTORY)) === "0x") {
    throw new TokenServiceError(
      ErrorCode.UPSTREAM_UNAVAILABLE,
      `the CREATE2 factory could not be deployed on the simulated ${chain.info.chain}/${chain.info.network} (its transaction is ${status.status})`,
    );
  }
}

/** The factory is there once this resolves: deployed now on a simulated chain, refused (CREATE2_FACTORY_MISSING) on a live one. */
export async function requireCreate2Factory(chain: EvmChain): Promise<void> {
  if ((await codeAt(chain, CREATE2_FACTORY)) !== "0x") return;
  if (!chain.simulated || chain.fund === undefined) {
    throw new TokenServiceError(
      ErrorCode.CREATE2_FACTORY_MISSING,
      `the CREATE2 factory ${CREATE2_FACTORY} is not deployed on ${chain.info.chain}/${chain.info.network}: deploy it first ` +
        `(send ${CREATE2_FACTORY_DEPLOYMENT_COST} wei to ${CREATE2_FACTORY_DEPLOYER}, then broadcast details.deploymentTransaction), ` +
        `or launch without salt`,
      {
        field: "salt",
        details: {
          factory: CREATE2_FACTORY,
          deployer: CREATE2_FACTORY_DEPLOYER,
          deployerFunding: CREATE2_FACTORY_DEPLOYMENT_COST.toString(),
          deploymentTransaction: CREATE2_FACTORY_DEPLOYMENT,
        },
      },
    );
  }
  const fund = chain.fund.bind(chain);
  let pending = deploying.get(chain);
  if (pending === undefined) {
    pending = deployFactory(chain, fund).finally(() => deploying.delete(chain));
    deploying.set(chain, pending);
  }
  await pending;
}

/**
 * Before anything is signed: a contract already at the address refuses the launch (the factory would revert), and the
 * factory must be there. A launch of the same address still pending on a live chain is not seen: it is mined first,
 * and the second transaction reverts.
 */
export async function preflightCreate2(chain: EvmChain, contractAddress: string): Promise<void> {
  if ((await codeAt(chain, contractAddress)) !== "0x") {
    throw new TokenServiceError(
      ErrorCode.ALREADY_DEPLOYED,
      `a contract is already deployed at ${contractAddress} on ${chain.info.chain}/${chain.info.network}: the same salt and token ` +
        `parameters give the same address; change the salt to deploy another`,
      { field: "salt", details: { contractAddress } },
    );
  }
  await requireCreate2Factory(chain);
}
