import { ZeroAddress, dataSlice, getAddress, getBytes, id } from "ethers";

import type { EvmChain } from "../chain.js";
import { translateProviderError } from "../provider-errors.js";
import { notAToken } from "./not-a-token.js";
import { codeAt, nodeOf } from "./view-call.js";

// Which functions a contract has, read from its code: the function dispatcher Solidity compiles compares the
// call's selector with each function's, pushed as a constant (PUSH1 to PUSH4: a selector with leading zero bytes is
// pushed shorter). A function whose selector is pushed nowhere cannot be called. ERC-165 cannot say this: it declares
// interfaces, and burn or pause belong to none. Checked against every variant the service ships (test/unit/code-probe.test.ts).

/** EIP-1967's implementation slot: bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1). */
export const EIP1967_IMPLEMENTATION_SLOT = "0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc";
/** EIP-1167's minimal proxy: its code around the implementation's address. */
const EIP1167 = /^0x363d3d373d3d3d363d73([0-9a-f]{40})5af43d82803e903d91602b57fd5bf3$/i;

const PUSH1 = 0x60;
const PUSH32 = 0x7f;
const DELEGATECALL = 0xf4;

/** The keys the compiler's CBOR metadata begins with: "ipfs", "bzzr0", "bzzr1" (Solidity), "solc" alone; as CBOR text. */
const METADATA_KEYS = ["0x6469706673", "0x65627a7a7230", "0x65627a7a7231", "0x64736f6c63"].map((hex) => getBytes(hex));
const MAX_METADATA_BYTES = 256;

/**
 * Where the compiler's metadata that starts at `at` ends: a CBOR map of one to three entries beginning with one of its
 * keys, followed by its own length in two bytes. It is data, not code: it ends a runtime code, and sits inside a
 * creation code (the runtime code within it, and data after). Undefined when no metadata starts there.
 */
function metadataEnd(bytes: Uint8Array, at: number): number | undefined {
  if (bytes[at]! < 0xa1 || bytes[at]! > 0xa3) return undefined;
  const key = METADATA_KEYS.find((candidate) => candidate.every((byte, index) => bytes[at + 1 + index] === byte));
  if (key === undefined) return undefined;
  for (let end = at + 1 + key.length; end + 1 < bytes.length && end - at <= MAX_METADATA_BYTES; end++) {
    if (((bytes[end]! << 8) | bytes[end + 1]!) === end - at) return end + 2;
  }
  return undefined;
}

export interface CodeProbe {
  /** true: the code dispatches this function; false: it cannot be called; undefined: the code delegates, so it cannot tell. */
  has(signature: string): boolean | undefined;
  /** The implementation whose functions these are, when the contract is an EIP-1967 proxy or an EIP-1167 clone. */
  implementation?: string;
}

/** The functions `code` dispatches: every constant of one to four bytes it pushes, and whether it delegates calls. */
export function functionsInCode(code: string): CodeProbe {
  const bytes = getBytes(code);
  const pushed = new Set<number>();
  let delegates = false;
  for (let at = 0; at < bytes.length; at++) {
    const metadata = metadataEnd(bytes, at);
    if (metadata !== undefined) {
      at = metadata - 1;
      continue;
    }
    const op = bytes[at]!;
    if (op === DELEGATECALL) delegates = true;
    if (op < PUSH1 || op > PUSH32) continue;
    const size = op - PUSH1 + 1;
    if (size <= 4) {
      let value = 0;
      for (let index = 1; index <= size; index++) value = value * 256 + (bytes[at + index] ?? 0);
      pushed.add(value);
    }
    at += size;
  }
  return {
    has(signature) {
      if (pushed.has(Number.parseInt(id(signature).slice(2, 10), 16))) return true;
      return delegates ? undefined : false;
    },
  };
}

/** Where a proxy keeps its logic: EIP-1967's implementation slot, or an EIP-1167 clone's target; undefined for other code. */
async function implementationOf(chain: EvmChain, contract: string, code: string): Promise<string | undefined> {
  const clone = EIP1167.exec(code);
  if (clone) return getAddress(`0x${clone[1]}`);
  let slot: string;
  try {
    slot = await chain.provider.getStorage(contract, EIP1967_IMPLEMENTATION_SLOT);
  } catch (error) {
    throw translateProviderError(error, nodeOf(chain));
  }
  const implementation = getAddress(dataSlice(slot, 12));
  return implementation === ZeroAddress ? undefined : implementation;
}

/**
 * The functions `contract` has, from its code, or from its implementation's when it is an EIP-1967 proxy or an
 * EIP-1167 clone. Code that delegates otherwise (another kind of proxy) answers undefined for a function it does not
 * dispatch itself: the function may be behind it. No code at all is NOT_A_TOKEN_CONTRACT. `contractCode`: its code as
 * the caller reads it anyway (or is reading it), so that it is asked of the node once.
 */
export async function probeCode(
  chain: EvmChain,
  contract: string,
  contractCode: string | Promise<string> = codeAt(chain, contract),
): Promise<CodeProbe> {
  const code = await contractCode;
  if (code === "0x") throw notAToken(contract, "a", true);
  const implementation = await implementationOf(chain, contract, code);
  if (implementation === undefined) return functionsInCode(code);
  return { ...functionsInCode(await codeAt(chain, implementation)), implementation };
}
