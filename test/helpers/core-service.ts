import { Contract } from "ethers";
import hre from "hardhat";

import { createTokenService, resolveNetwork, type TokenService } from "../../src/api.js";
import type { Wallet } from "../../src/core/wallets.js";
import { expectMined, fundedWallet, type Pair } from "./service.js";

// The service the core tests (test/integration/core*.test.ts) open per file on simulated chains, and what they do with
// it over and over: fund a wallet (its key remembered, for the check that no error ever quotes one), launch a token,
// read a contract.

export const SEPOLIA: Pair = { chain: "ethereum", network: "sepolia" };
export const BSC_TESTNET: Pair = { chain: "binance_smart_chain", network: "testnet" };
export const MINTER_ROLE = "0x9f2df0fed2c77648de5860a4cc508cd0818c85b8b8a1ab4ceeef8d981c8956a6";
export const DEFAULT_ADMIN_ROLE = `0x${"00".repeat(32)}`;
const ROLES_ABI = [
  "function hasRole(bytes32 role, address account) view returns (bool)",
  "function tokenURI(uint256) view returns (string)",
];

/**
 * Opens the service before the suite and closes it after; `opened` hands it to the suite (its tests name it `service`).
 * Call inside a describe.
 */
export function useCoreService(opened: (service: TokenService) => void) {
  let service: TokenService;
  /** Every private key these tests handed to the service: no error may ever quote one. */
  const secrets: string[] = [];

  const remember = (wallet: Wallet): Wallet => {
    secrets.push(wallet.privateKey);
    return wallet;
  };
  const funded = async (pair: Pair, amount?: string) => remember(await fundedWallet(service, pair, amount));

  async function launchErc20(pair: Pair, owner: Wallet, token: Record<string, unknown>) {
    const launched = await service.launch({
      ...pair,
      type: "SERVICE_ERC20",
      token,
      sender: owner.address,
      privateKey: owner.privateKey,
    });
    await expectMined(service, pair, launched.transactionHash);
    return launched.contractAddress;
  }

  async function launchErc721(pair: Pair, owner: Wallet, uri = "ipfs://collection/") {
    const launched = await service.launch({
      ...pair,
      type: "SERVICE_ERC721",
      token: { name: "Collectible", symbol: "COL", uri },
      sender: owner.address,
      privateKey: owner.privateKey,
    });
    await expectMined(service, pair, launched.transactionHash);
    return launched.contractAddress;
  }

  async function contractOn(pair: Pair, address: string) {
    const chain = await service.evmChain(resolveNetwork(pair.chain, pair.network), "read");
    return new Contract(address, ROLES_ABI, chain.provider);
  }

  before(async function () {
    // env: {} so a TOKEN_SERVICE_RPC_* variable in the developer's shell cannot turn these pairs live.
    service = await createTokenService({ hre, env: {} });
    opened(service);
  });

  after(async function () {
    await service.close();
  });

  /**
   * Makes, before the suite, what the typed-error tests refuse writes against: a funded owner, its capped ERC20 (90 of
   * 100 minted) and its ERC721, whose token 5 is minted; `made` hands them to the suite. Answers `launch`: an ERC20
   * launch from the owner, `overrides` replacing its fields. Call inside a describe.
   */
  function useErrorTokens(made: (tokens: { owner: Wallet; erc20: string; erc721: string }) => void) {
    let owner: Wallet;
    before(async function () {
      owner = await funded(SEPOLIA);
      const erc20 = await launchErc20(SEPOLIA, owner, { name: "Capped", symbol: "CAPD", initialSupply: "90", totalSupply: "100" });
      const erc721 = await launchErc721(SEPOLIA, owner);
      const minted = await service.mint({
        ...SEPOLIA,
        type: "erc721",
        contractAddress: erc721,
        to: owner.address,
        tokenId: "5",
        sender: owner.address,
        privateKey: owner.privateKey,
      });
      await expectMined(service, SEPOLIA, minted.transactionHash);
      made({ owner, erc20, erc721 });
    });
    return (
      token: unknown,
      overrides: Partial<{ chain: string; network: string; type: string; sender: string; privateKey: string }> = {},
    ) => service.launch({ ...SEPOLIA, type: "erc20", token, sender: owner.address, privateKey: owner.privateKey, ...overrides });
  }

  return { secrets, remember, funded, launchErc20, launchErc721, contractOn, useErrorTokens };
}
