import { expect } from "chai";
import type { HDNodeWallet } from "ethers";
import { parseAbi, parseAbiItem, type Address } from "viem";

import { ZERO, eventsOf, revertOf, startConformance, type Conformance } from "../../helpers/conformance.js";

// EIP conformance, ERC-20 (issue 31): the clauses of EIP-20 itself, each test naming the one it checks, run on anvil
// against the ERC20s a launch deploys — the historic ServiceERC20 (no `options`) and the variant with every option
// (burnable, pausable, permit, capped, mintable, votes; roles), whose `_update` goes through four extensions. Tokens are
// launched and minted through the service's HTTP API, moved by anvil's default accounts with ethers, and read back
// with viem: balances, allowances, and the Transfer and Approval events decoded from the receipts and the node's logs.

const ERC20 = [
  "function totalSupply() view returns (uint256)",
  "function balanceOf(address owner) view returns (uint256)",
  "function allowance(address owner, address spender) view returns (uint256)",
  "function transfer(address to, uint256 value) returns (bool)",
  "function transferFrom(address from, address to, uint256 value) returns (bool)",
  "function approve(address spender, uint256 value) returns (bool)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event Approval(address indexed owner, address indexed spender, uint256 value)",
  "error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)",
  "error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)",
] as const;
const abi = parseAbi(ERC20);

describe("EIP conformance on anvil: ERC-20", function () {
  this.timeout(180_000);
  let run: Conformance;

  before(async function () {
    run = await startConformance();
  });

  after(async function () {
    await run?.stop();
  });

  const variants: Array<[string, Record<string, unknown>]> = [
    ["historic ServiceERC20 (no options)", {}],
    [
      "every option, roles",
      {
        totalSupply: "1000000000",
        options: { burnable: true, pausable: true, permit: true, capped: true, mintable: true, votes: true, access: "roles" },
      },
    ],
  ];

  for (const [label, extra] of variants) {
    describe(label, function () {
      let token: Address;
      let holder: HDNodeWallet;
      let spender: HDNodeWallet;
      let recipient: HDNodeWallet;
      let empty: HDNodeWallet;
      const INITIAL = 1_000_000n;

      before(async function () {
        [holder, spender, recipient, empty] = [run.wallet(1), run.wallet(2), run.wallet(3), run.wallet(4)];
        token = await run.launch("ERC20", {
          name: "Conformance",
          symbol: "CNF",
          initialSupply: String(INITIAL),
          minter: holder.address,
          ...extra,
        });
      });

      const read = {
        balance: (owner: string) => run.viem.readContract({ address: token, abi, functionName: "balanceOf", args: [owner as Address] }),
        allowance: (owner: string, to: string) =>
          run.viem.readContract({ address: token, abi, functionName: "allowance", args: [owner as Address, to as Address] }),
        totalSupply: () => run.viem.readContract({ address: token, abi, functionName: "totalSupply" }),
      };

      it("transfer: moves _value to _to, returns true and MUST fire the Transfer event", async function () {
        const [before, recipientBefore, supply] = [
          await read.balance(holder.address),
          await read.balance(recipient.address),
          await read.totalSupply(),
        ];
        const { result } = await run.viem.simulateContract({
          address: token,
          abi,
          functionName: "transfer",
          args: [recipient.address as Address, 100n],
          account: holder.address as Address,
        });
        expect(result, "transfer returns true").to.equal(true);
        const receipt = await run.send(holder, token, ERC20, "transfer", [recipient.address, 100n]);
        expect(eventsOf(abi, receipt, token)).to.deep.equal([
          { eventName: "Transfer", args: { from: holder.address, to: recipient.address, value: 100n } },
        ]);
        expect(await read.balance(holder.address)).to.equal(before - 100n);
        expect(await read.balance(recipient.address)).to.equal(recipientBefore + 100n);
        expect(await read.totalSupply(), "a transfer leaves the supply as it was").to.equal(supply);
      });

      it("transfer: a transfer of 0 MUST be treated as a normal transfer and fire the Transfer event (from an empty account too)", async function () {
        expect(await read.balance(empty.address)).to.equal(0n);
        const fromHolder = await run.send(holder, token, ERC20, "transfer", [recipient.address, 0n]);
        expect(eventsOf(abi, fromHolder, token)).to.deep.equal([
          { eventName: "Transfer", args: { from: holder.address, to: recipient.address, value: 0n } },
        ]);
        const fromEmpty = await run.send(empty, token, ERC20, "transfer", [recipient.address, 0n]);
        expect(eventsOf(abi, fromEmpty, token)).to.deep.equal([
          { eventName: "Transfer", args: { from: empty.address, to: recipient.address, value: 0n } },
        ]);
      });

      it("approve: MUST fire the Approval event, allowance returns it, and a second call overwrites the current allowance", async function () {
        const first = await run.send(holder, token, ERC20, "approve", [spender.address, 50n]);
        expect(eventsOf(abi, first, token)).to.deep.equal([
          { eventName: "Approval", args: { owner: holder.address, spender: spender.address, value: 50n } },
        ]);
        expect(await read.allowance(holder.address, spender.address)).to.equal(50n);
        const second = await run.send(holder, token, ERC20, "approve", [spender.address, 30n]);
        expect(eventsOf(abi, second, token)).to.deep.equal([
          { eventName: "Approval", args: { owner: holder.address, spender: spender.address, value: 30n } },
        ]);
        expect(await read.allowance(holder.address, spender.address), "overwritten, not added").to.equal(30n);
      });

      it("transferFrom: moves _value from _from to _to within the allowance, MUST fire the Transfer event and lowers the allowance", async function () {
        await run.send(holder, token, ERC20, "approve", [spender.address, 40n]);
        const [before, recipientBefore] = [await read.balance(holder.address), await read.balance(recipient.address)];
        const receipt = await run.send(spender, token, ERC20, "transferFrom", [holder.address, recipient.address, 25n]);
        const transfers = eventsOf(abi, receipt, token).filter((event) => event.eventName === "Transfer");
        expect(transfers).to.deep.equal([{ eventName: "Transfer", args: { from: holder.address, to: recipient.address, value: 25n } }]);
        expect(await read.balance(holder.address)).to.equal(before - 25n);
        expect(await read.balance(recipient.address)).to.equal(recipientBefore + 25n);
        expect(await read.allowance(holder.address, spender.address)).to.equal(15n);
      });

      it("transferFrom: a transferFrom of 0 is a normal transfer and fires the Transfer event", async function () {
        const receipt = await run.send(empty, token, ERC20, "transferFrom", [holder.address, recipient.address, 0n]);
        const transfers = eventsOf(abi, receipt, token).filter((event) => event.eventName === "Transfer");
        expect(transfers).to.deep.equal([{ eventName: "Transfer", args: { from: holder.address, to: recipient.address, value: 0n } }]);
      });

      it("transferFrom: throws unless _from authorized the sender for at least _value (beyond the allowance, or none at all)", async function () {
        await run.send(holder, token, ERC20, "approve", [spender.address, 10n]);
        const beyond = await revertOf(
          run.viem.simulateContract({
            address: token,
            abi,
            functionName: "transferFrom",
            args: [holder.address as Address, recipient.address as Address, 11n],
            account: spender.address as Address,
          }),
        );
        expect(beyond).to.deep.equal({ errorName: "ERC20InsufficientAllowance", args: [spender.address, 10n, 11n] });
        const unauthorised = await revertOf(
          run.viem.simulateContract({
            address: token,
            abi,
            functionName: "transferFrom",
            args: [holder.address as Address, recipient.address as Address, 1n],
            account: recipient.address as Address,
          }),
        );
        expect(unauthorised).to.deep.equal({ errorName: "ERC20InsufficientAllowance", args: [recipient.address, 0n, 1n] });
        expect(await read.allowance(holder.address, spender.address), "a refused transferFrom spends nothing").to.equal(10n);
      });

      it("transfer: throws when the caller's balance is short of _value", async function () {
        const balance = await read.balance(recipient.address);
        const refused = await revertOf(
          run.viem.simulateContract({
            address: token,
            abi,
            functionName: "transfer",
            args: [holder.address as Address, balance + 1n],
            account: recipient.address as Address,
          }),
        );
        expect(refused).to.deep.equal({ errorName: "ERC20InsufficientBalance", args: [recipient.address, balance, balance + 1n] });
      });

      it("totalSupply equals the sum of balanceOf over every holder its Transfer events name; a mint is a Transfer from 0x0", async function () {
        const minted = run.wallet(5).address;
        await run.mint("ERC20", token, { to: minted, amount: "777" });
        const logs = await run.viem.getLogs({
          address: token,
          event: parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)"),
          fromBlock: 0n,
        });
        const replayed = new Map<string, bigint>();
        for (const { args } of logs) {
          if (args.from !== ZERO) replayed.set(args.from!, (replayed.get(args.from!) ?? 0n) - args.value!);
          if (args.to !== ZERO) replayed.set(args.to!, (replayed.get(args.to!) ?? 0n) + args.value!);
        }
        const mints = logs.filter((log) => log.args.from === ZERO).map((log) => [log.args.to, log.args.value]);
        expect(mints, "the initial supply and the later mint, each a Transfer from 0x0").to.deep.equal([
          [holder.address, INITIAL],
          [minted, 777n],
        ]);
        let sum = 0n;
        for (const [owner, balance] of replayed) {
          expect(await read.balance(owner), `balanceOf(${owner}) is what its Transfer events add up to`).to.equal(balance);
          sum += balance;
        }
        expect(await read.totalSupply()).to.equal(sum);
        expect(sum).to.equal(INITIAL + 777n);
      });
    });
  }
});
