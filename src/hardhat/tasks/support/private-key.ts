import { computeAddress, getAddress, isAddress } from "ethers";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { readPrivateKeyVariable } from "../../../config/environment.js";
import { invalidArgument } from "../../../domain/errors.js";

interface KeySource {
  privateKeyEnv?: string;
  sender?: string;
  /** `--from`: a held wallet (docs/custody.md), which the service signs for: no key is read. */
  from?: string;
}

/** The key options of a signing task, as `resolveSigner` takes them. */
export function signerSource(args: { privateKeyEnv?: string; sender?: string; from?: string }): KeySource {
  return {
    ...(args.privateKeyEnv ? { privateKeyEnv: args.privateKeyEnv } : {}),
    ...(args.sender ? { sender: args.sender } : {}),
    ...(args.from ? { from: args.from } : {}),
  };
}

interface Resolvable {
  get(): Promise<string>;
}

function isResolvable(value: unknown): value is Resolvable {
  return typeof value === "object" && value !== null && typeof (value as Resolvable).get === "function";
}

/** The private keys listed in the selected Hardhat network's `accounts` (configuration variables included). */
async function configuredAccountKeys(hre: HardhatRuntimeEnvironment): Promise<string[]> {
  const networkName = hre.globalOptions.network ?? "default";
  const accounts = (hre.config.networks[networkName] as { accounts?: unknown } | undefined)?.accounts;
  if (!Array.isArray(accounts)) return [];
  const keys: string[] = [];
  for (const account of accounts) {
    const variable = isResolvable(account) ? account : (account as { privateKey?: unknown })?.privateKey;
    if (isResolvable(variable)) keys.push(await variable.get());
  }
  return keys;
}

/**
 * Finds the signing key without it ever touching the command line: from the
 * environment variable the user names, or from the Hardhat network's
 * configured accounts (the one whose address is --sender).
 */
export async function resolveSigner(hre: HardhatRuntimeEnvironment, source: KeySource): Promise<{ sender: string; privateKey?: string }> {
  if (source.from !== undefined) {
    if (source.privateKeyEnv || source.sender)
      throw invalidArgument(
        "from",
        "--from names a held wallet, which the service signs for: give it alone, without --sender or --private-key-env",
      );
    if (!isAddress(source.from)) throw invalidArgument("from", "--from must be the address of a held wallet (0x and 40 hex digits)");
    return { sender: getAddress(source.from) };
  }
  if (source.privateKeyEnv) {
    const privateKey = readPrivateKeyVariable(process.env, source.privateKeyEnv);
    if (!privateKey) throw invalidArgument("privateKey", `environment variable ${source.privateKeyEnv} is not set`);
    let derived: string;
    try {
      derived = computeAddress(privateKey.startsWith("0x") ? privateKey : `0x${privateKey}`);
    } catch {
      throw invalidArgument("privateKey", `environment variable ${source.privateKeyEnv} does not hold a 32-byte hex private key`);
    }
    return { sender: source.sender || derived, privateKey };
  }
  const keys = await configuredAccountKeys(hre);
  const match = keys.find((key) => {
    try {
      return !source.sender || computeAddress(key.startsWith("0x") ? key : `0x${key}`).toLowerCase() === source.sender.toLowerCase();
    } catch {
      return false;
    }
  });
  if (match === undefined) {
    throw invalidArgument(
      "privateKey",
      source.sender
        ? `no key for ${source.sender}: pass --private-key-env NAME (an environment variable holding the key) or list the key in the selected Hardhat network's accounts`
        : "no signing key: pass --private-key-env NAME (an environment variable holding the key), or --network with configured accounts",
    );
  }
  return { sender: source.sender || computeAddress(match.startsWith("0x") ? match : `0x${match}`), privateKey: match };
}
