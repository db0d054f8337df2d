import { createRequire } from "node:module";
import type { InterfaceAbi } from "ethers";

export interface ShippedArtifact {
  contractName: string;
  abi: InterfaceAbi;
  bytecode: string;
}

const require = createRequire(import.meta.url);

export const serviceErc20Artifact: ShippedArtifact = require("../../artifacts/ServiceERC20.json");
export const serviceErc721Artifact: ShippedArtifact = require("../../artifacts/ServiceERC721.json");
export const balanceReaderArtifact: ShippedArtifact = require("../../artifacts/BalanceReader.json");
