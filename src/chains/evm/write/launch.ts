import { Interface, getCreateAddress } from "ethers";

import type { LaunchParams } from "../../../domain/commands.js";
import { invalidArgument } from "../../../domain/errors.js";
import { isPrecompiled, variantName, variantOf, type Upgradeable, type Variant } from "../../../domain/token-options.js";
import { serviceErc20Artifact, serviceErc721Artifact, variantArtifact, type ShippedArtifact } from "../artifacts.js";
import { stringShape } from "./gas-shapes.js";

export type { LaunchParams } from "../../../domain/commands.js";

interface Deployable {
  artifact: ShippedArtifact;
  iface: Interface;
}

// Parsed once each: a launch only encodes its constructor arguments after the shipped bytecode.
const deployables = new Map<string, Deployable>();

function deployable(artifact: () => ShippedArtifact, name: string): Deployable {
  let known = deployables.get(name);
  if (known === undefined) {
    const loaded = artifact();
    deployables.set(name, (known = { artifact: loaded, iface: new Interface(loaded.abi) }));
  }
  return known;
}

const isZero = (value: bigint | number | string) => BigInt(value) === 0n;

/** The contract a launch deploys: the historic template without `options`, else the variant its options select. */
export function contractName(params: LaunchParams): string {
  const options = params.token.options;
  if (options === undefined) return params.type === "ERC20" ? "ServiceERC20" : "ServiceERC721";
  return variantName(variantOf(params.type, options));
}

/** The variant a launch deploys when it is not shipped compiled: it is compiled on first use (variants/). */
export function firstUseVariant(params: LaunchParams): Variant | undefined {
  if (params.token.options === undefined) return undefined;
  const variant = variantOf(params.type, params.token.options);
  return isPrecompiled(variant) ? undefined : variant;
}

function contractOf(params: LaunchParams, firstUse: ShippedArtifact | undefined): Deployable {
  const name = contractName(params);
  if (params.token.options === undefined)
    return deployable(() => (params.type === "ERC20" ? serviceErc20Artifact : serviceErc721Artifact), name);
  if (firstUse !== undefined) return deployable(() => firstUse, name);
  return deployable(() => variantArtifact(params.type, name), name);
}

/**
 * The constructor's arguments, in the order of the contract (historic or variant: scripts/token-variants.ts). With
 * access "managed" the admin's place holds the AccessManager (`initialAuthority`): the token has no admin of its own.
 */
function constructorArguments(params: LaunchParams, sender: string): unknown[] {
  const authority = params.token.authority;
  if (params.type === "ERC20") {
    const { name, symbol, decimals, cap, minter, initialSupply, account, options } = params.token;
    const capArgument = options === undefined || options.capped ? [cap] : [];
    return [name, symbol, decimals, ...capArgument, minter, initialSupply, authority ?? account];
  }
  const royalty = params.token.options?.royalty;
  const royaltyArguments = royalty === undefined ? [] : [royalty.receiver, royalty.basisPoints];
  if (params.type === "ERC721") {
    const { name, symbol, uri } = params.token;
    return [name, symbol, uri, authority ?? sender, ...royaltyArguments];
  }
  return [params.token.name, params.token.uri, authority ?? sender, ...royaltyArguments];
}

/** How the launch's token upgrades; undefined: it is not upgradeable (deployed as it is, without a proxy). */
export function upgradeableOf(params: LaunchParams): Upgradeable | undefined {
  return params.token.options?.upgradeable;
}

/** EIP-3860: the most creation code a transaction (or a CREATE) may carry. */
export const MAX_INITCODE_BYTES = 49_152;

/**
 * Where an upgradeable token's launcher (variants/launcher-source.ts) puts what it deploys: a contract account's nonce
 * starts at 1 (EIP-161), so the implementation is its CREATE at nonce 1 and the proxy, the token, at nonce 2.
 */
export function launchedByLauncher(launcher: string): { implementation: string; proxy: string } {
  return { implementation: getCreateAddress({ from: launcher, nonce: 1 }), proxy: getCreateAddress({ from: launcher, nonce: 2 }) };
}

/**
 * An upgradeable token's launcher creation code: the launcher's bytecode, then the implementation's creation code (its
 * constructor takes nothing: it only disables initializers), for a transparent proxy the ProxyAdmin's initial owner (the
 * token's admin: the admin argument of `initialize`, the AccessManager with access "managed"), and the `initialize`
 * call with what the constructor of the same variant without a proxy takes.
 */
function launcherData(params: LaunchParams, sender: string, implementation: ShippedArtifact, launcher: ShippedArtifact): string {
  const upgradeable = upgradeableOf(params)!;
  const args = constructorArguments(params, sender);
  const initData = deployable(() => implementation, implementation.contractName).iface.encodeFunctionData("initialize", args);
  const admin = params.type === "ERC20" ? args[args.length - 1] : args[params.type === "ERC721" ? 3 : 2];
  const launcherArguments = upgradeable === "uups" ? [implementation.bytecode, initData] : [implementation.bytecode, admin, initData];
  const data =
    launcher.bytecode +
    deployable(() => launcher, launcher.contractName)
      .iface.encodeDeploy(launcherArguments)
      .slice(2);
  if ((data.length - 2) / 2 > MAX_INITCODE_BYTES) {
    throw invalidArgument(
      "token.options",
      `the launch's creation code is ${(data.length - 2) / 2} bytes, over EIP-3860's ${MAX_INITCODE_BYTES}: launch with fewer token.options`,
      { initCodeBytes: (data.length - 2) / 2, maxInitCodeBytes: MAX_INITCODE_BYTES },
    );
  }
  return data;
}

/** What the gas of a deployment depends on besides its calldata's bytes (see gas-shapes.ts). */
export function gasShape(params: LaunchParams): string {
  // The historic templates keep their shapes' names; a variant's shape starts with its contract.
  const variant = params.token.options === undefined ? "" : ` ${contractName(params)}`;
  if (params.type === "ERC20") {
    const { name, symbol, decimals, cap, minter, initialSupply, account } = params.token;
    const zeros = [decimals, cap, minter, initialSupply, account].map((value) => (isZero(value) ? "0" : "x")).join("");
    return `ERC20${variant} ${stringShape(name)} ${stringShape(symbol)} ${zeros}`;
  }
  const royalty = params.token.options?.royalty;
  const royaltyShape = royalty === undefined ? "" : ` ${isZero(royalty.basisPoints) ? "0" : "x"}`;
  if (params.type === "ERC721") {
    const { name, symbol, uri } = params.token;
    return `ERC721${variant} ${stringShape(name)} ${stringShape(symbol)} ${stringShape(uri)}${royaltyShape}`;
  }
  return `ERC1155${variant} ${stringShape(params.token.name)} ${stringShape(params.token.uri)}${royaltyShape}`;
}

/**
 * The creation code: the contract's bytecode followed by its encoded constructor arguments. `firstUse` is the compiled
 * contract of a variant `firstUseVariant` names; for an upgradeable token, the launcher's creation code (`launcher`
 * compiled for its `upgradeable`), which deploys that implementation and its proxy.
 */
export function deploymentData(params: LaunchParams, sender: string, firstUse?: ShippedArtifact, launcher?: ShippedArtifact): string {
  if (upgradeableOf(params) !== undefined) {
    if (firstUse === undefined || launcher === undefined) throw new Error("an upgradeable launch needs its implementation and launcher");
    return launcherData(params, sender, firstUse, launcher);
  }
  const { artifact, iface } = contractOf(params, firstUse);
  return artifact.bytecode + iface.encodeDeploy(constructorArguments(params, sender)).slice(2);
}
