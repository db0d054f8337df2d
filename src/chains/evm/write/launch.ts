import { Interface } from "ethers";

import type { LaunchParams } from "../../../domain/commands.js";
import { serviceErc20Artifact, serviceErc721Artifact } from "../artifacts.js";
import { stringShape } from "./gas-shapes.js";

export type { LaunchParams } from "../../../domain/commands.js";

// Parsed once: a launch only encodes its constructor arguments after the shipped bytecode.
const erc20Constructor = new Interface(serviceErc20Artifact.abi);
const erc721Constructor = new Interface(serviceErc721Artifact.abi);

const isZero = (value: bigint | number | string) => BigInt(value) === 0n;

/** What the gas of a deployment depends on besides its calldata's bytes (see gas-shapes.ts). */
export function gasShape(params: LaunchParams): string {
  if (params.type === "ERC20") {
    const { name, symbol, decimals, cap, minter, initialSupply, account } = params.token;
    const zeros = [decimals, cap, minter, initialSupply, account].map((value) => (isZero(value) ? "0" : "x")).join("");
    return `ERC20 ${stringShape(name)} ${stringShape(symbol)} ${zeros}`;
  }
  const { name, symbol, uri } = params.token;
  return `ERC721 ${stringShape(name)} ${stringShape(symbol)} ${stringShape(uri)}`;
}

export function deploymentData(params: LaunchParams, sender: string): string {
  if (params.type === "ERC20") {
    const { name, symbol, decimals, cap, minter, initialSupply, account } = params.token;
    const encoded = erc20Constructor.encodeDeploy([name, symbol, decimals, cap, minter, initialSupply, account]);
    return serviceErc20Artifact.bytecode + encoded.slice(2);
  }
  const { name, symbol, uri } = params.token;
  return serviceErc721Artifact.bytecode + erc721Constructor.encodeDeploy([name, symbol, uri, sender]).slice(2);
}
