import { createRequire } from "node:module";

import type { HardhatRuntimeEnvironmentHooks } from "hardhat/types/hooks";

import { offerNativeCrypto, type NativeCrypto } from "../../chains/crypto/public-keys.js";

const require = createRequire(import.meta.url);
const NATIVE_CRYPTO = "hardhat/internal/native-crypto";

// EDR's native secp256k1 and keccak (what hardhat-ethers installs into ethers), offered to the core's key
// generation; loaded on the first key, so `serve` starts without them.
export default async (): Promise<Partial<HardhatRuntimeEnvironmentHooks>> => ({
  async created() {
    offerNativeCrypto(() => require(NATIVE_CRYPTO) as NativeCrypto, NATIVE_CRYPTO);
  },
});
