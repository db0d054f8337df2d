import { createServer } from "node:net";

import { expect } from "chai";
import { Wallet as EthersWallet } from "ethers";

import type { OperationRecord } from "../../src/core/operations/types.js";
import type { TokenService } from "../../src/core/token-service.js";
import type { Wallet } from "../../src/core/wallets.js";

/** A record's transitions as `status: reason` lines: what an assertion about its path prints when it fails. */
export const transitionReasons = (record: OperationRecord) =>
  record.transitions.map((transition) => `${transition.status}: ${transition.reason}`);

export interface Pair {
  chain: string;
  network: string;
}

/** A new wallet holding `amount` smallest units (default 10 of the native currency) from the faucet. */
export async function fundedWallet(service: TokenService, pair: Pair, amount?: string): Promise<Wallet> {
  const wallet = service.createWallet(pair);
  await service.faucet({ ...pair, address: wallet.address, ...(amount !== undefined ? { amount } : {}) });
  return wallet;
}

/** Sends `amount` smallest units of the native currency from `sender` (its key in the body) to a new address. */
export function transferToNewAddress(service: TokenService, pair: Pair, sender: { address: string; privateKey: string }, amount = "1") {
  return service.transfer({
    ...pair,
    type: "NATIVE",
    to: EthersWallet.createRandom().address,
    amount,
    sender: sender.address,
    privateKey: sender.privateKey,
  });
}

/** Waits for a transaction and fails unless it was mined successfully. */
export async function expectMined(service: TokenService, pair: Pair, transactionHash: string) {
  const status = await service.waitForTransaction({ ...pair, transactionHash, timeoutMs: 60_000 });
  expect(status.status, `transaction ${transactionHash}`).to.equal("mined");
  return status;
}

/** Waits until the operation's record is final (the tracker is then done with it) and fails unless it is mined. */
export async function expectOperationMined(service: TokenService, operation: { id: string; transactionHash: string }) {
  const record = await service.operations.wait(operation.id, 60_000);
  expect(record.status, `operation ${operation.id} (transaction ${operation.transactionHash})`).to.equal("mined");
  return record;
}

/** A local port nothing listens on: bound once by us, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An ERC20 launched by `owner` and mined; its contract address. */
export async function minedErc20(
  service: TokenService,
  pair: Pair,
  owner: { address: string; privateKey: string },
  token: Record<string, string>,
): Promise<string> {
  const launched = await service.launch({ ...pair, type: "erc20", token, sender: owner.address, privateKey: owner.privateKey });
  await expectOperationMined(service, launched);
  return launched.contractAddress;
}
