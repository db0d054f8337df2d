import { createRequire } from "node:module";

import type { HardhatRuntimeEnvironmentHooks } from "hardhat/types/hooks";

import { offerNativeCrypto, type NativeCrypto } from "../../chains/crypto/public-keys.js";

const require = createRequire(import.meta.url);

// EDR's native secp256k1 and keccak (what hardhat-ethers installs into ethers), offered to the core's key
// generation; loaded on the first key, so `serve` starts without them.
export default async (): Promise<Partial<HardhatRuntimeEnvironmentHooks>> => ({
  async created() {
    offerNativeCrypto(() => require("hardhat/internal/native-crypto") as NativeCrypto);
  },
});
