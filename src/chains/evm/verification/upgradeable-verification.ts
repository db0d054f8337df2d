import { AbiCoder, getCreateAddress } from "ethers";

import type { TokenKind, Upgradeable } from "../../../domain/token-options.js";
import { LAUNCHERS } from "../variants/launcher-source.js";
import { create2Address } from "../write/create2.js";
import { launchedByLauncher } from "../write/launch.js";
import { tokenVerification, type FirstUseContract, type TokenVerification } from "./verification-input.js";

// An upgradeable token's verification (docs/decisions/0065-upgradeable-launches.md): its launch sent a launcher's
// creation code, which holds the implementation's creation code and the `initialize` call. The token's address is the
// proxy's: its input is the launcher's (the proxy is compiled there, so its bytecode is that compile's), its constructor
// arguments those the launcher passed (the implementation, for a transparent proxy the ProxyAdmin's owner, the
// initializer call). The implementation's input is the variant's own, its constructor taking nothing.

/** How the launcher was deployed: its creation code, and a CREATE from the sender at a nonce or a CREATE2 with a salt. */
export interface LauncherDeployment {
  initCode: string;
  salt?: string;
  sender: string;
  nonce: number;
}

export interface UpgradeableVerification {
  proxy: string;
  proxyVerification: TokenVerification;
  implementation: TokenVerification & { address: string };
}

/**
 * The proxy's and implementation's verifications from the launcher's creation code; undefined when that code is not
 * `launcher`'s bytecode followed by arguments that start with `implementation`'s bytecode.
 */
export function upgradeableVerification(
  kind: TokenKind,
  upgradeable: Upgradeable,
  deployment: LauncherDeployment,
  launcher: FirstUseContract,
  implementation: FirstUseContract,
): UpgradeableVerification | undefined {
  const code = deployment.initCode.toLowerCase();
  const launcherCode = launcher.artifact.bytecode.toLowerCase();
  if (!code.startsWith(launcherCode)) return undefined;
  const types = upgradeable === "uups" ? ["bytes", "bytes"] : ["bytes", "address", "bytes"];
  let decoded: unknown[];
  try {
    decoded = [...AbiCoder.defaultAbiCoder().decode(types, `0x${code.slice(launcherCode.length)}`)];
  } catch {
    return undefined;
  }
  const implementationCode = decoded[0] as string;
  const implementationVerification = tokenVerification(kind, implementationCode, implementation);
  if (implementationVerification === undefined || implementationVerification.constructorArguments !== "0x") return undefined;
  const launcherAddress =
    deployment.salt === undefined
      ? getCreateAddress({ from: deployment.sender, nonce: deployment.nonce })
      : create2Address(deployment.salt, deployment.initCode);
  const addresses = launchedByLauncher(launcherAddress);
  const { proxyName, proxyUnit } = LAUNCHERS[upgradeable];
  const proxyArguments = upgradeable === "uups" ? [addresses.implementation, decoded[1]] : [addresses.implementation, ...decoded.slice(1)];
  const settings = launcher.input.settings as { evmVersion: string; optimizer: { enabled: boolean; runs: number } };
  return {
    proxy: addresses.proxy,
    proxyVerification: {
      contractName: proxyName,
      fullyQualifiedName: `${proxyUnit}:${proxyName}`,
      compilerVersion: implementationVerification.compilerVersion,
      evmVersion: settings.evmVersion,
      optimizer: settings.optimizer,
      constructorArguments: AbiCoder.defaultAbiCoder().encode(
        upgradeable === "uups" ? ["address", "bytes"] : ["address", "address", "bytes"],
        proxyArguments,
      ),
      standardJsonInput: launcher.input,
    },
    implementation: { address: addresses.implementation, ...implementationVerification },
  };
}
