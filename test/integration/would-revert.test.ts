import { expect } from "chai";
import { ZeroAddress, getAddress, toQuantity } from "ethers";

import { resolveNetwork } from "../../src/api.js";
import type { EvmChain } from "../../src/chains/evm/chain.js";
import { InProcessSenderLock } from "../../src/chains/evm/sender-lock.js";
import { MINTER_ROLE, erc20Interface } from "../../src/chains/evm/token-abi.js";
import { sendTransaction } from "../../src/chains/evm/write/send-transaction.js";
import { ErrorCode } from "../../src/domain/errors.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { expectServiceError } from "../helpers/errors.js";
import { startFaultyRelay, type FaultyRelay } from "../helpers/faulty-relay.js";
import { startServer, type RunningServer } from "../helpers/http-server.js";

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;

/** Creation code that reverts with `data`: it copies the bytes that follow it to memory and reverts with them. */
function revertingCreation(data: string): string {
  const bytes = (data.length - 2) / 2;
  const length = bytes.toString(16).padStart(2, "0");
  // PUSH1 len PUSH1 12 PUSH1 0 CODECOPY PUSH1 len PUSH1 0 REVERT: 12 bytes, then the data.
  return `0x60${length}600c600039` + `60${length}6000fd` + data.slice(2);
}

const word = (value: bigint | number) => BigInt(value).toString(16).padStart(64, "0");
/** Error("not now"), as `require(false, "not now")` reverts. */
const ERROR_STRING = `0x08c379a0${word(32)}${word(7)}${Buffer.from("not now").toString("hex").padEnd(64, "0")}`;
/** Panic(0x11), as an unchecked overflow reverts. */
const PANIC_OVERFLOW = `0x4e487b71${word(0x11)}`;
/** A custom error no known ABI defines. */
const UNKNOWN_ERROR = `0xdeadbeef${word(7)}`;

interface Where {
  api: RunningServer;
  chain: EvmChain;
  fund(address: string): Promise<void>;
  close(): Promise<void>;
}

/** The same checks on a simulated chain (EDR in process) and on a live one (an anvil node). */
for (const kind of ["simulated", "anvil"] as const) {
  describe(`a write that would revert is refused before signing, its revert named (${kind})`, function () {
    this.timeout(120_000);
    let where: Where;
    let owner: { address: string; privateKey: string };
    let stranger: { address: string; privateKey: string };
    let erc20: string;
    let erc721: string;

    before(async function () {
      let node: AnvilNode | undefined;
      if (kind === "anvil") node = await startAnvil();
      const api = await startServer(node ? { env: { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: node.url } } : {});
      const chain = await api.server.service.evmChain(resolveNetwork(SEPOLIA.chain, SEPOLIA.network), "test");
      where = {
        api,
        chain,
        fund: async (address) => {
          if (node) await node.rpc("anvil_setBalance", [address, toQuantity(10n ** 20n)]);
          else expect((await api.call("POST", "/api/v1/faucet", { ...SEPOLIA, address })).status).to.equal(200);
        },
        close: async () => {
          await api.stop();
          await node?.stop();
        },
      };
      const fundedWallet = async () => {
        const { body } = await api.call("POST", "/api/v1/wallets", SEPOLIA);
        await where.fund(body.address);
        return body as { address: string; privateKey: string };
      };
      [owner, stranger] = await Promise.all([fundedWallet(), fundedWallet()]);
      const launch = async (type: string, token: Record<string, string>) => {
        const { status, body } = await api.call("POST", "/api/v1/tokens?wait=mined", {
          ...SEPOLIA,
          type,
          token,
          sender: owner.address,
          privateKey: owner.privateKey,
        });
        expect(status, JSON.stringify(body)).to.equal(200);
        return body.contractAddress as string;
      };
      erc20 = await launch("ERC20", { name: "Capped", symbol: "CAP", initialSupply: "90", totalSupply: "100" });
      erc721 = await launch("ERC721", { name: "Art", symbol: "ART" });
    });

    after(async function () {
      await where?.close();
    });

    const nonce = (address: string) => where.chain.provider.getTransactionCount(address, "pending");
    const records = async () => (await where.api.call("GET", "/api/v1/operations?limit=100")).body.items.length as number;

    /** Runs `write`, which must be refused; checks that nothing was signed, sent or recorded meanwhile. */
    async function refusedUnsent<T>(sender: string, write: () => Promise<T>): Promise<T> {
      const [nonceBefore, recordsBefore] = await Promise.all([nonce(sender), records()]);
      const result = await write();
      expect(await nonce(sender), "the sender's nonce is unchanged: nothing was sent").to.equal(nonceBefore);
      expect(await records(), "no record was written").to.equal(recordsBefore);
      return result;
    }

    it("422 WOULD_REVERT naming ERC721InvalidReceiver: an ERC721 minted to a contract that cannot receive it", async function () {
      const { status, body } = await refusedUnsent(owner.address, () =>
        where.api.call("POST", "/api/v1/tokens/mint", {
          ...SEPOLIA,
          type: "ERC721",
          contractAddress: erc721,
          to: erc20,
          sender: owner.address,
          privateKey: owner.privateKey,
        }),
      );
      expect(status).to.equal(422);
      expect(body.error.code).to.equal("WOULD_REVERT");
      expect(body.error.details).to.deep.equal({ error: "ERC721InvalidReceiver", args: { receiver: getAddress(erc20) } });
      expect(body.error.message).to.include("ERC721InvalidReceiver(receiver: ");
    });

    it("keeps the mint checks' own codes where they find the cause first: CAP_EXCEEDED, NOT_A_MINTER", async function () {
      const past = await refusedUnsent(owner.address, () =>
        where.api.call("POST", "/api/v1/tokens/mint", {
          ...SEPOLIA,
          type: "ERC20",
          contractAddress: erc20,
          to: owner.address,
          amount: "11",
          sender: owner.address,
          privateKey: owner.privateKey,
        }),
      );
      expect([past.status, past.body.error.code]).to.deep.equal([422, "CAP_EXCEEDED"]);
      const notMinter = await refusedUnsent(stranger.address, () =>
        where.api.call("POST", "/api/v1/tokens/mint", {
          ...SEPOLIA,
          type: "ERC20",
          contractAddress: erc20,
          to: stranger.address,
          amount: "1",
          sender: stranger.address,
          privateKey: stranger.privateKey,
        }),
      );
      expect([notMinter.status, notMinter.body.error.code]).to.deep.equal([422, "NOT_A_MINTER"]);
    });

    it("refuses every launch of a shape whose launches revert, even beside a learnt shape: ERC20InvalidReceiver, a supply minted to the zero address", async function () {
      const launch = (minter: string) =>
        where.api.call("POST", "/api/v1/tokens", {
          ...SEPOLIA,
          type: "ERC20",
          token: { name: "Shape", symbol: "SHP", initialSupply: "5", minter },
          sender: owner.address,
          privateKey: owner.privateKey,
        });
      // The same strings and supply with a minter: a shape of its own, learnt by this launch.
      expect((await launch(stranger.address)).status).to.equal(200);
      for (let attempt = 1; attempt <= 2; attempt++) {
        const { status, body } = await refusedUnsent(owner.address, () => launch(ZeroAddress));
        expect([status, body.error.code], `attempt ${attempt}`).to.deep.equal([422, "WOULD_REVERT"]);
        expect(body.error.details).to.deep.equal({ error: "ERC20InvalidReceiver", args: { receiver: ZeroAddress } });
      }
    });

    describe("where the mint checks did not run (a send straight to the write pipeline)", function () {
      const lock = new InProcessSenderLock();
      /** The send must be refused with WOULD_REVERT; its record hook must never run. */
      async function wouldRevert(signer: { address: string; privateKey: string }, transaction: { to?: string; data: string }) {
        let recorded = false;
        const error = await refusedUnsent(signer.address, () =>
          expectServiceError(
            sendTransaction(
              where.chain,
              lock,
              { sender: signer.address, privateKey: signer.privateKey, ...transaction },
              { beforeBroadcast: async () => void (recorded = true) },
            ),
            ErrorCode.WOULD_REVERT,
            undefined,
            [signer.privateKey],
          ),
        );
        expect(recorded, "nothing was signed").to.equal(false);
        return error;
      }

      it("ERC20ExceededCap with its arguments: a mint past the cap", async function () {
        const error = await wouldRevert(owner, { to: erc20, data: erc20Interface.encodeFunctionData("mint", [owner.address, 11n]) });
        expect(error.details).to.deep.equal({ error: "ERC20ExceededCap", args: { increasedSupply: "101", cap: "100" } });
        expect(error.message).to.include("ERC20ExceededCap(increasedSupply: 101, cap: 100)");
      });

      it("AccessControlUnauthorizedAccount: a mint by an address without the minter role", async function () {
        const error = await wouldRevert(stranger, { to: erc20, data: erc20Interface.encodeFunctionData("mint", [stranger.address, 1n]) });
        expect(error.details).to.deep.equal({
          error: "AccessControlUnauthorizedAccount",
          args: { account: getAddress(stranger.address), neededRole: MINTER_ROLE },
        });
      });

      it("estimates each send of a shape whose first send would revert, refusing them all: nothing is learnt from a refusal", async function () {
        const send = () =>
          sendTransaction(
            where.chain,
            lock,
            { sender: owner.address, privateKey: owner.privateKey, data: revertingCreation(ERROR_STRING), gasShape: "reverting creation" },
            { beforeBroadcast: async () => expect.fail("nothing is signed") },
          );
        const nonceBefore = await nonce(owner.address);
        // Two in one batch (the second follows the first's estimate), then one alone.
        const batch = await Promise.allSettled([send(), send()]);
        const alone = await Promise.allSettled([send()]);
        for (const outcome of [...batch, ...alone]) {
          expect(outcome.status).to.equal("rejected");
          const reason = (outcome as PromiseRejectedResult).reason as { code?: string; details?: unknown };
          expect([reason.code, reason.details]).to.deep.equal([ErrorCode.WOULD_REVERT, { error: "Error", args: { reason: "not now" } }]);
        }
        expect(await nonce(owner.address)).to.equal(nonceBefore);
      });

      it("Error(string) with its reason, Panic with its code and meaning, an unknown error with its raw data", async function () {
        expect((await wouldRevert(owner, { data: revertingCreation(ERROR_STRING) })).details).to.deep.equal({
          error: "Error",
          args: { reason: "not now" },
        });
        expect((await wouldRevert(owner, { data: revertingCreation(PANIC_OVERFLOW) })).details).to.deep.equal({
          error: "Panic",
          args: { code: "0x11", reason: "arithmetic overflow or underflow" },
        });
        expect((await wouldRevert(owner, { data: revertingCreation(UNKNOWN_ERROR) })).details).to.deep.equal({
          error: null,
          args: {},
          data: UNKNOWN_ERROR,
        });
      });
    });
  });
}

describe("a node whose eth_estimateGas refusal carries no revert data (anvil behind a relay that strips it)", function () {
  this.timeout(120_000);
  let node: AnvilNode;
  let stripping: FaultyRelay;
  let api: RunningServer;

  before(async function () {
    node = await startAnvil();
    stripping = await startFaultyRelay(node.url, (methods) => (methods.includes("eth_estimateGas") ? "strip-error-data" : "forward"));
    api = await startServer({ env: { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: stripping.url } });
  });

  after(async function () {
    await api?.stop();
    await stripping?.close();
    await node?.stop();
  });

  it("asks eth_call with the same sender, target and data, and names the revert from its answer", async function () {
    const { body: owner } = await api.call("POST", "/api/v1/wallets", SEPOLIA);
    await node.rpc("anvil_setBalance", [owner.address, toQuantity(10n ** 20n)]);
    const signer = { sender: owner.address, privateKey: owner.privateKey };
    const erc20 = await api.call("POST", "/api/v1/tokens?wait=mined", {
      ...SEPOLIA,
      type: "ERC20",
      token: { name: "A", symbol: "A" },
      ...signer,
    });
    const erc721 = await api.call("POST", "/api/v1/tokens?wait=mined", {
      ...SEPOLIA,
      type: "ERC721",
      token: { name: "B", symbol: "B" },
      ...signer,
    });
    const before = stripping.requests.length;
    const { status, body } = await api.call("POST", "/api/v1/tokens/mint", {
      ...SEPOLIA,
      type: "ERC721",
      contractAddress: erc721.body.contractAddress,
      to: erc20.body.contractAddress,
      ...signer,
    });
    expect([status, body.error.code, body.error.details?.error]).to.deep.equal([422, "WOULD_REVERT", "ERC721InvalidReceiver"]);
    const methods = stripping.requests.slice(before).flat();
    expect(methods.indexOf("eth_call", methods.indexOf("eth_estimateGas"))).to.be.greaterThan(-1);
    expect(methods).not.to.include("eth_sendRawTransaction");
  });
});
