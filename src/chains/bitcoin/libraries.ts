import { createRequire } from "node:module";
import type * as BitcoinJs from "bitcoinjs-lib";
import type { ECPairAPI, ECPairFactory as EcPairFactoryFunction } from "ecpair";

import { withNativePublicKeys } from "../crypto/public-keys.js";
import { secp256k1 } from "../crypto/secp256k1.js";

// Loaded on first use, not at start-up: bitcoinjs-lib, ecpair and their ~80 modules cost `serve` start-up time and memory that a service which never
// creates a wallet or touches Bitcoin does not need. require() keeps the callers synchronous; every
// use goes through here, so one copy (the CommonJS build) is loaded and initialised once.
const require = createRequire(import.meta.url);

let bitcoin: { lib: typeof BitcoinJs; ECPair: ECPairAPI } | undefined;

/** bitcoinjs-lib with its curve library set, and an ECPair factory on the same curve. */
export function bitcoinLibraries(): { lib: typeof BitcoinJs; ECPair: ECPairAPI } {
  if (bitcoin === undefined) {
    const lib = require("bitcoinjs-lib") as typeof BitcoinJs;
    const { ECPairFactory } = require("ecpair") as { ECPairFactory: typeof EcPairFactoryFunction };
    lib.initEccLib(secp256k1());
    bitcoin = { lib, ECPair: ECPairFactory(withNativePublicKeys(secp256k1())) };
  }
  return bitcoin;
}
