import { expect } from "chai";
import { Contract, Wallet } from "ethers";
import hre from "hardhat";

import { parseEvmAddress } from "../../src/domain/addresses.js";
import { createTokenService, resolveNetwork, type TokenService } from "../../src/api.js";
import { ErrorCode } from "../../src/domain/errors.js";
import { serviceErc20Artifact } from "../../src/chains/evm/artifacts.js";
import { expectServiceError } from "../helpers/errors.js";
import { expectMined, fundedWallet, minedErc20, type Pair } from "../helpers/service.js";

const SEPOLIA: Pair = { chain: "ethereum", network: "sepolia" };
const READS = new Set(["eth_call", "eth_getBalance"]);

for (const { blockTimeSeconds, mining } of [
  { blockTimeSeconds: 0, mining: "mining on send" },
  { blockTimeSeconds: 0.2, mining: "mining a block every 0.2 s" },
]) {
  describe(`balance reads on a simulated chain ${mining}: equal reads at one chain state share one answer, never a stale one`, function () {
    let service: TokenService;
    let owner: Wallet;
    let token: string;
    /** Node calls that read state, in the order made. */
    const reads: string[] = [];
    const readsSince = (mark: number) => reads.length - mark;

    before(async function () {
      service = await createTokenService({
        hre,
        env: {},
        blockTimeSeconds,
        onNodeCall: (pair, method) => pair === "ethereum/sepolia" && READS.has(method) && reads.push(method),
      });
      const funded = await fundedWallet(service, SEPOLIA);
      owner = new Wallet(funded.privateKey);
      token = await minedErc20(service, SEPOLIA, owner, { name: "Shared", symbol: "SHR", initialSupply: "1000" });
    });

    after(async function () {
      await service?.close();
    });

    const balances = (address: string) => service.getBalances({ ...SEPOLIA, address, erc20TokenContractAddresses: [token] });

    it("gives 20 concurrent equal reads equal answers, frozen so that no caller changes what another sees", async function () {
      const answers = await Promise.all(Array.from({ length: 20 }, () => balances(owner.address)));
      for (const answer of answers) expect(answer).to.deep.equal(answers[0]);
      expect(answers[0]!.balances.SHR).to.include({ balance: "1000" });
      expect(Object.isFrozen(answers[0]!.balances.ETH) && Object.isFrozen(answers[0]!.balances.SHR)).to.equal(true);
      expect(() => {
        (answers[0]!.balances.SHR as { balance: string }).balance = "0";
      }).to.throw(TypeError);
    });

    if (blockTimeSeconds === 0) {
      it("makes one node call for 20 concurrent equal reads, and none for equal reads while the state stays", async function () {
        const reader = Wallet.createRandom().address;
        const mark = reads.length;
        await Promise.all(Array.from({ length: 20 }, () => balances(reader)));
        expect(readsSince(mark)).to.equal(1);
        for (let index = 0; index < 10; index++) await balances(reader);
        expect(readsSince(mark)).to.equal(1);
        // Another holder, or another token list, is another read.
        await service.getBalances({ ...SEPOLIA, address: reader });
        expect(readsSince(mark)).to.equal(2);
      });
    }

    it("sees a mint once it is mined (and not before it was, while a block is pending)", async function () {
      const before = await balances(owner.address);
      const sendMint = () =>
        service.mint({
          ...SEPOLIA,
          type: "erc20",
          contractAddress: token,
          to: owner.address,
          amount: "5",
          sender: owner.address,
          privateKey: owner.privateKey,
        });
      let mint: Awaited<ReturnType<typeof sendMint>>;
      if (blockTimeSeconds === 0) mint = await sendMint();
      else {
        // The next block may come at any moment after the node took the mint: the block timer is paused while the mint
        // waits in the pool, so that the reads below are certain to come before its block.
        const chain = await service.evmChain(resolveNetwork("ethereum", "sepolia"), "test");
        const blockTimer = (ms: number) => chain.rpc!("evm_setIntervalMining", [ms]);
        await blockTimer(0);
        try {
          const head = await chain.provider.getBlockNumber();
          mint = await sendMint();
          // These reads are of the state before the mint, and shared until a block moves the head on.
          const reads = await Promise.all([balances(owner.address), balances(owner.address)]);
          for (const read of reads) expect(read.balances.SHR!.balance).to.equal(before.balances.SHR!.balance);
          expect(await chain.provider.getTransactionReceipt(mint.transactionHash), "the mint waits in the pool").to.equal(null);
          expect(await chain.provider.getBlockNumber()).to.equal(head);
        } finally {
          await blockTimer(Math.round(blockTimeSeconds * 1000));
        }
      }
      await expectMined(service, SEPOLIA, mint.transactionHash);
      const after = await balances(owner.address);
      expect(BigInt(after.balances.SHR!.balance)).to.equal(BigInt(before.balances.SHR!.balance) + 5n);
      expect(BigInt(after.balances.ETH!.balance) < BigInt(before.balances.ETH!.balance), "the mint's fee is paid").to.equal(true);
    });

    it("sees a faucet grant at once", async function () {
      const before = await balances(owner.address);
      await service.faucet({ ...SEPOLIA, address: owner.address, amount: "7" });
      const after = await balances(owner.address);
      expect(BigInt(after.balances.ETH!.balance)).to.equal(BigInt(before.balances.ETH!.balance) + 7n);
    });

    it("sees a transfer sent past the service, by a signer on the chain's own provider, once it is mined", async function () {
      const recipient = Wallet.createRandom().address;
      expect((await balances(recipient)).balances.SHR!.balance).to.equal("0");
      const chain = await service.evmChain(resolveNetwork("ethereum", "sepolia"), "test");
      const contract = new Contract(token, serviceErc20Artifact.abi, owner.connect(chain.provider));
      const sent = (await contract.getFunction("transfer")(recipient, 3n)) as { hash: string };
      await expectMined(service, SEPOLIA, sent.hash);
      expect((await balances(recipient)).balances.SHR!.balance).to.equal("3");
    });

    it("keeps no failure: a read refused at one state asks the node again", async function () {
      const codeless = Wallet.createRandom().address;
      const mark = reads.length;
      for (let attempt = 0; attempt < 2; attempt++) {
        await expectServiceError(
          service.getBalances({ ...SEPOLIA, address: owner.address, erc20TokenContractAddresses: [codeless] }),
          ErrorCode.NOT_A_TOKEN_CONTRACT,
          "erc20TokenContractAddresses",
        );
      }
      expect(readsSince(mark)).to.be.at.least(2);
    });
  });
}

describe("EVM addresses parsed again: remembered checksums give the same verdicts", function () {
  it("answers a remembered address as the first time, and still refuses a wrong checksum of it", function () {
    const address = Wallet.createRandom().address;
    const lower = address.toLowerCase();
    expect(parseEvmAddress(lower, "address")).to.equal(address);
    expect(parseEvmAddress(lower, "address")).to.equal(address);
    expect(parseEvmAddress(address, "address")).to.equal(address);
    // Flip the case of one letter: a checksum error, before and after the right spelling was remembered.
    const letter = address.slice(2).search(/[a-fA-F]/) + 2;
    const flipped =
      address.slice(0, letter) +
      (address[letter] === address[letter]!.toLowerCase() ? address[letter]!.toUpperCase() : address[letter]!.toLowerCase()) +
      address.slice(letter + 1);
    for (let attempt = 0; attempt < 2; attempt++) expect(() => parseEvmAddress(flipped, "address")).to.throw(/checksum/);
  });
});
