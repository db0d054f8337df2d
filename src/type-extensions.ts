import type { TokenServiceConfig, TokenServiceUserConfig } from "./types.js";

import "hardhat/types/config";
declare module "hardhat/types/config" {
  interface HardhatUserConfig {
    tokenService?: TokenServiceUserConfig;
  }

  interface HardhatConfig {
    tokenService: TokenServiceConfig;
  }
}
