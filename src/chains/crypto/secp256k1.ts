import { createRequire } from "node:module";
import type * as Secp256k1 from "tiny-secp256k1";

// Loaded on first use, not at start-up: the tiny-secp256k1 WebAssembly module costs `serve` start-up time and memory
// that a service which never signs nor touches Bitcoin does not need (EVM wallets take native code where the host
// offers it: public-keys.ts). require() keeps the callers synchronous; every
// use goes through here, so one copy (the CommonJS build) is loaded and initialised once.
const require = createRequire(import.meta.url);

let secp256k1Module: typeof Secp256k1 | undefined;

/** tiny-secp256k1: secp256k1 in WebAssembly (EVM and Bitcoin keys, EVM signatures). The one curve loader. */
export function secp256k1(): typeof Secp256k1 {
  return (secp256k1Module ??= require("tiny-secp256k1") as typeof Secp256k1);
}
