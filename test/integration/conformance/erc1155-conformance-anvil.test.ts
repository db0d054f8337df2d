import { expect } from "chai";
import type { HDNodeWallet } from "ethers";
import { parseAbi, type Address, type Hash } from "viem";

import { ANVIL_ACCOUNT } from "../../helpers/anvil.js";
import { ZERO, eventsOf, revertOf, startConformance, type Conformance } from "../../helpers/conformance.js";
import { deployTestToken } from "../../helpers/test-tokens.js";

// EIP conformance, ERC-1155 (issue 31): the clauses of EIP-1155 and its metadata extension, each test naming the one
// it checks, run on anvil against the collections a launch deploys — the bare one (`{}`) and the one with every option
// (burnable, pausable, supply, royalty; roles). The collections write `safeBatchTransferFrom` and `mintBatch`
// themselves (docs/tokens.md#erc1155), so the batch paths get the same checks as the single ones: events, the reverts
// the EIP lists, and the receiver hook's arguments and timing. Which hook a batch of one id asks for is covered by
// test/integration/http/erc1155-receiver-hooks-anvil.test.ts and not repeated here. Ids are minted through the service's
// HTTP API, moved by anvil's default accounts with ethers, and read back with viem.

const ERC1155 = [
  "function balanceOf(address account, uint256 id) view returns (uint256)",
  "function balanceOfBatch(address[] accounts, uint256[] ids) view returns (uint256[])",
  "function setApprovalForAll(address operator, bool approved)",
  "function isApprovedForAll(address account, address operator) view returns (bool)",
  "function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes data)",
  "function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] values, bytes data)",
  "function supportsInterface(bytes4 interfaceId) view returns (bool)",
  "function uri(uint256 id) view returns (string)",
  "event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)",
  "event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)",
  "event ApprovalForAll(address indexed account, address indexed operator, bool approved)",
  "event Received1155(address operator, address from, uint256 id, uint256 value, bytes data, uint256 balanceSeen)",
  "event ReceivedBatch1155(address operator, address from, uint256[] ids, uint256[] values, bytes data, uint256[] balancesSeen)",
  "error ERC1155InsufficientBalance(address sender, uint256 balance, uint256 needed, uint256 tokenId)",
  "error ERC1155InvalidReceiver(address receiver)",
  "error ERC1155MissingApprovalForAll(address operator, address owner)",
  "error ERC1155InvalidArrayLength(uint256 idsLength, uint256 valuesLength)",
] as const;
const abi = parseAbi(ERC1155);
const URI = "https://example.com/items/{id}.json";

describe("EIP conformance on anvil: ERC-1155", function () {
  this.timeout(180_000);
  let run: Conformance;
  let noReceiver: Address;
  let wrongAnswer: Address;
  let recorder: Address;

  before(async function () {
    run = await startConformance();
    const deployer = run.wallet(9);
    noReceiver = (await (await deployTestToken("TestNoReceiver", deployer)).getAddress()) as Address;
    wrongAnswer = (await (await deployTestToken("TestWrongAnswerReceiver", deployer)).getAddress()) as Address;
    recorder = (await (await deployTestToken("TestRecordingReceiver", deployer)).getAddress()) as Address;
  });

  after(async function () {
    await run?.stop();
  });

  const variants: Array<[string, Record<string, unknown>]> = [
    ["the bare collection", {}],
    [
      "every option, roles",
      {
        burnable: true,
        pausable: true,
        supply: true,
        royalty: { receiver: "0x000000000000000000000000000000000000dEaD", basisPoints: 250 },
        access: "roles",
      },
    ],
  ];

  for (const [label, options] of variants) {
    describe(label, function () {
      let items: Address;
      let holder: HDNodeWallet;
      let operator: HDNodeWallet;
      let stranger: HDNodeWallet;

      before(async function () {
        [holder, operator, stranger] = [run.wallet(1), run.wallet(2), run.wallet(3)];
        items = await run.launch("ERC1155", { name: "Conformance", uri: URI, options });
      });

      const balance = (account: string, id: bigint) =>
        run.viem.readContract({ address: items, abi, functionName: "balanceOf", args: [account as Address, id] });
      const simulate = (from: HDNodeWallet, functionName: "safeTransferFrom" | "safeBatchTransferFrom", args: readonly unknown[]) =>
        run.viem.simulateContract({ address: items, abi, functionName, args, account: from.address as Address } as never);

      it("minting: TransferSingle (one id) and TransferBatch (several) with _from 0x0 and the minter as _operator", async function () {
        const single = await run.mint("ERC1155", items, { to: holder.address, tokenId: "1", amount: "100" });
        const singleReceipt = await run.viem.getTransactionReceipt({ hash: single.transactionHash as Hash });
        expect(eventsOf(abi, singleReceipt, items)).to.deep.equal([
          { eventName: "TransferSingle", args: { operator: ANVIL_ACCOUNT.address, from: ZERO, to: holder.address, id: 1n, value: 100n } },
        ]);
        const batch = await run.mint("ERC1155", items, { to: holder.address, tokenIds: ["2", "3"], amounts: ["200", "300"] });
        const batchReceipt = await run.viem.getTransactionReceipt({ hash: batch.transactionHash as Hash });
        expect(eventsOf(abi, batchReceipt, items)).to.deep.equal([
          {
            eventName: "TransferBatch",
            args: { operator: ANVIL_ACCOUNT.address, from: ZERO, to: holder.address, ids: [2n, 3n], values: [200n, 300n] },
          },
        ]);
        expect([await balance(holder.address, 1n), await balance(holder.address, 2n), await balance(holder.address, 3n)]).to.deep.equal([
          100n,
          200n,
          300n,
        ]);
      });

      it("safeTransferFrom: moves _value of _id and MUST emit TransferSingle with the caller as _operator", async function () {
        const receipt = await run.send(holder, items, ERC1155, "safeTransferFrom", [holder.address, stranger.address, 1n, 10n, "0x"]);
        expect(eventsOf(abi, receipt, items)).to.deep.equal([
          {
            eventName: "TransferSingle",
            args: { operator: holder.address, from: holder.address, to: stranger.address, id: 1n, value: 10n },
          },
        ]);
        expect(await balance(holder.address, 1n)).to.equal(90n);
        expect(await balance(stranger.address, 1n)).to.equal(10n);
      });

      it("safeBatchTransferFrom: moves every _values[i] of _ids[i] and MUST emit TransferBatch", async function () {
        const receipt = await run.send(holder, items, ERC1155, "safeBatchTransferFrom", [
          holder.address,
          stranger.address,
          [2n, 3n],
          [20n, 30n],
          "0x",
        ]);
        expect(eventsOf(abi, receipt, items)).to.deep.equal([
          {
            eventName: "TransferBatch",
            args: { operator: holder.address, from: holder.address, to: stranger.address, ids: [2n, 3n], values: [20n, 30n] },
          },
        ]);
        expect(await balance(holder.address, 2n)).to.equal(180n);
        expect(await balance(stranger.address, 3n)).to.equal(30n);
      });

      it("setApprovalForAll: MUST emit ApprovalForAll; the operator then transfers, named as _operator in the event", async function () {
        const granted = await run.send(holder, items, ERC1155, "setApprovalForAll", [operator.address, true]);
        expect(eventsOf(abi, granted, items)).to.deep.equal([
          { eventName: "ApprovalForAll", args: { account: holder.address, operator: operator.address, approved: true } },
        ]);
        expect(
          await run.viem.readContract({
            address: items,
            abi,
            functionName: "isApprovedForAll",
            args: [holder.address as Address, operator.address as Address],
          }),
        ).to.equal(true);
        const single = await run.send(operator, items, ERC1155, "safeTransferFrom", [holder.address, operator.address, 1n, 1n, "0x"]);
        expect(eventsOf(abi, single, items)).to.deep.equal([
          {
            eventName: "TransferSingle",
            args: { operator: operator.address, from: holder.address, to: operator.address, id: 1n, value: 1n },
          },
        ]);
        const batch = await run.send(operator, items, ERC1155, "safeBatchTransferFrom", [
          holder.address,
          operator.address,
          [1n, 2n],
          [1n, 2n],
          "0x",
        ]);
        expect(eventsOf(abi, batch, items)).to.deep.equal([
          {
            eventName: "TransferBatch",
            args: { operator: operator.address, from: holder.address, to: operator.address, ids: [1n, 2n], values: [1n, 2n] },
          },
        ]);
        const revoked = await run.send(holder, items, ERC1155, "setApprovalForAll", [operator.address, false]);
        expect(eventsOf(abi, revoked, items)).to.deep.equal([
          { eventName: "ApprovalForAll", args: { account: holder.address, operator: operator.address, approved: false } },
        ]);
      });

      it("safeTransferFrom and safeBatchTransferFrom MUST revert: caller not approved, _to zero, balance short, _ids and _values of different lengths", async function () {
        const cases: Array<
          [string, HDNodeWallet, "safeTransferFrom" | "safeBatchTransferFrom", readonly unknown[], { errorName: string; args: unknown[] }]
        > = [
          [
            "single, not approved",
            stranger,
            "safeTransferFrom",
            [holder.address, stranger.address, 1n, 1n, "0x"],
            { errorName: "ERC1155MissingApprovalForAll", args: [stranger.address, holder.address] },
          ],
          [
            "batch, not approved",
            operator,
            "safeBatchTransferFrom",
            [holder.address, stranger.address, [1n], [1n], "0x"],
            { errorName: "ERC1155MissingApprovalForAll", args: [operator.address, holder.address] },
          ],
          [
            "single, _to zero",
            holder,
            "safeTransferFrom",
            [holder.address, ZERO, 1n, 1n, "0x"],
            { errorName: "ERC1155InvalidReceiver", args: [ZERO] },
          ],
          [
            "batch, _to zero",
            holder,
            "safeBatchTransferFrom",
            [holder.address, ZERO, [1n, 2n], [1n, 1n], "0x"],
            { errorName: "ERC1155InvalidReceiver", args: [ZERO] },
          ],
          [
            "single, balance short",
            holder,
            "safeTransferFrom",
            [holder.address, stranger.address, 1n, 89n, "0x"],
            { errorName: "ERC1155InsufficientBalance", args: [holder.address, 88n, 89n, 1n] },
          ],
          [
            "batch, one balance short",
            holder,
            "safeBatchTransferFrom",
            [holder.address, stranger.address, [1n, 3n], [1n, 271n], "0x"],
            { errorName: "ERC1155InsufficientBalance", args: [holder.address, 270n, 271n, 3n] },
          ],
          [
            "batch, lengths differ",
            holder,
            "safeBatchTransferFrom",
            [holder.address, stranger.address, [1n, 2n], [1n], "0x"],
            { errorName: "ERC1155InvalidArrayLength", args: [2n, 1n] },
          ],
        ];
        for (const [what, from, functionName, args, expected] of cases) {
          expect(await revertOf(simulate(from, functionName, args)), what).to.deep.equal(expected);
        }
      });

      it("balanceOfBatch: answers each (owner, id) pair in order, and reverts when the two arrays differ in length", async function () {
        const answer = await run.viem.readContract({
          address: items,
          abi,
          functionName: "balanceOfBatch",
          args: [[holder.address, stranger.address, holder.address, stranger.address].map((a) => a as Address), [1n, 1n, 3n, 3n]],
        });
        expect(answer).to.deep.equal([await balance(holder.address, 1n), await balance(stranger.address, 1n), 270n, 30n]);
        const refused = await revertOf(
          run.viem.readContract({ address: items, abi, functionName: "balanceOfBatch", args: [[holder.address as Address], [1n, 2n]] }),
        );
        expect(refused).to.deep.equal({ errorName: "ERC1155InvalidArrayLength", args: [2n, 1n] });
      });

      it("a transfer to a contract without the receiver hook, or answering other than its magic value, MUST revert (single and batch)", async function () {
        for (const to of [noReceiver, wrongAnswer]) {
          expect(await revertOf(simulate(holder, "safeTransferFrom", [holder.address, to, 1n, 1n, "0x"])), `single to ${to}`).to.deep.equal(
            {
              errorName: "ERC1155InvalidReceiver",
              args: [to],
            },
          );
          expect(
            await revertOf(simulate(holder, "safeBatchTransferFrom", [holder.address, to, [1n, 2n], [1n, 1n], "0x"])),
            `batch to ${to}`,
          ).to.deep.equal({ errorName: "ERC1155InvalidReceiver", args: [to] });
        }
      });

      it("the receiver hook is called after the balances are updated, with _operator, _from and _data unaltered (single and batch)", async function () {
        const single = await run.send(holder, items, ERC1155, "safeTransferFrom", [holder.address, recorder, 1n, 5n, "0xc0ffee"]);
        expect(eventsOf(abi, single, recorder)).to.deep.equal([
          {
            eventName: "Received1155",
            args: { operator: holder.address, from: holder.address, id: 1n, value: 5n, data: "0xc0ffee", balanceSeen: 5n },
          },
        ]);
        const batch = await run.send(holder, items, ERC1155, "safeBatchTransferFrom", [
          holder.address,
          recorder,
          [1n, 3n],
          [2n, 7n],
          "0xbeef",
        ]);
        expect(eventsOf(abi, batch, recorder)).to.deep.equal([
          {
            eventName: "ReceivedBatch1155",
            args: {
              operator: holder.address,
              from: holder.address,
              ids: [1n, 3n],
              values: [2n, 7n],
              data: "0xbeef",
              balancesSeen: [7n, 7n],
            },
          },
        ]);
        const minted = await run.mint("ERC1155", items, { to: recorder, tokenIds: ["8", "9"], amounts: ["1", "2"] });
        const mintReceipt = await run.viem.getTransactionReceipt({ hash: minted.transactionHash as Hash });
        expect(eventsOf(abi, mintReceipt, recorder)).to.deep.equal([
          {
            eventName: "ReceivedBatch1155",
            args: { operator: ANVIL_ACCOUNT.address, from: ZERO, ids: [8n, 9n], values: [1n, 2n], data: "0x", balancesSeen: [1n, 2n] },
          },
        ]);
      });

      it("supportsInterface: ERC-1155 (0xd9b67a26) and its metadata URI extension (0x0e89341c); uri(id) is the launch's URI", async function () {
        for (const id of ["0xd9b67a26", "0x0e89341c"] as const) {
          expect(await run.viem.readContract({ address: items, abi, functionName: "supportsInterface", args: [id] }), id).to.equal(true);
        }
        expect(await run.viem.readContract({ address: items, abi, functionName: "uri", args: [1n] })).to.equal(URI);
      });
    });
  }
});
