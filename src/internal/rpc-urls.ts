import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

/** Resolves the live endpoints configured in `tokenService.rpc` (configuration variables included). */
export async function configuredRpcUrls(hre: HardhatRuntimeEnvironment): Promise<Record<string, string>> {
  const entries = await Promise.all(
    Object.entries(hre.config.tokenService?.rpc ?? {}).map(async ([pair, variable]) => [pair, await variable.get()] as const),
  );
  return Object.fromEntries(entries);
}
