import { expect } from "chai";
import type { HDNodeWallet } from "ethers";
import { domainSeparator, parseAbi, parseSignature, type Address } from "viem";

import { ZERO, eventsOf, revertOf, startConformance, type Conformance } from "../../helpers/conformance.js";

// EIP conformance, the ERC20 extensions (issue 31): ERC-2612 (permit sets the allowance from an EIP-712 signature and
// bumps the owner's nonce; it MUST revert past the deadline, for another signer, for a replayed or altered signature;
// DOMAIN_SEPARATOR is the EIP-712 domain of the token's name, version "1", the chain and the token, as viem computes
// it) and ERC-5805 with ERC-6372 (CLOCK_MODE "mode=blocknumber&from=default" and clock() the block number; no voting
// power until delegated; delegate and delegateBySig with their events; getVotes, and getPastVotes at past timepoints,
// reverting for one not yet past). Run on anvil against the variants with `permit`, with `votes`, and with both (one
// EIP-712 domain and one nonce per owner for the two signatures). Launched through the service, signed and sent with
// ethers by anvil's default accounts, read back with viem.

const ABI = [
  "function balanceOf(address owner) view returns (uint256)",
  "function transfer(address to, uint256 value) returns (bool)",
  "function allowance(address owner, address spender) view returns (uint256)",
  "function nonces(address owner) view returns (uint256)",
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
  "function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)",
  "function clock() view returns (uint48)",
  "function CLOCK_MODE() view returns (string)",
  "function delegates(address account) view returns (address)",
  "function delegate(address delegatee)",
  "function delegateBySig(address delegatee, uint256 nonce, uint256 expiry, uint8 v, bytes32 r, bytes32 s)",
  "function getVotes(address account) view returns (uint256)",
  "function getPastVotes(address account, uint256 timepoint) view returns (uint256)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event Approval(address indexed owner, address indexed spender, uint256 value)",
  "event DelegateChanged(address indexed delegator, address indexed fromDelegate, address indexed toDelegate)",
  "event DelegateVotesChanged(address indexed delegate, uint256 previousVotes, uint256 newVotes)",
  "error ERC2612ExpiredSignature(uint256 deadline)",
  "error ERC2612InvalidSigner(address signer, address owner)",
  "error ECDSAInvalidSignature()",
  "error VotesExpiredSignature(uint256 expiry)",
  "error InvalidAccountNonce(address account, uint256 currentNonce)",
  "error ERC5805FutureLookup(uint256 timepoint, uint48 clock)",
] as const;
const abi = parseAbi(ABI);
const CHAIN_ID = 11155111;
const NAME = "Signed Coin";
const INITIAL = 1_000_000n;

describe("EIP conformance on anvil: ERC-2612 permit, ERC-5805 votes and ERC-6372 clock", function () {
  this.timeout(180_000);
  let run: Conformance;
  let holder: HDNodeWallet;
  let spender: HDNodeWallet;
  let stranger: HDNodeWallet;
  let delegatee: HDNodeWallet;

  before(async function () {
    run = await startConformance();
    [holder, spender, stranger, delegatee] = [run.wallet(1), run.wallet(2), run.wallet(3), run.wallet(4)];
  });

  after(async function () {
    await run?.stop();
  });

  const launch = (options: Record<string, unknown>) =>
    run.launch("ERC20", { name: NAME, symbol: "SIG", initialSupply: String(INITIAL), minter: holder.address, options });
  const read = <T>(token: Address, functionName: string, args: readonly unknown[] = [], blockNumber?: bigint) =>
    run.viem.readContract({
      address: token,
      abi,
      functionName,
      args,
      ...(blockNumber === undefined ? {} : { blockNumber }),
    } as never) as Promise<T>;
  const domain = (token: Address) => ({ name: NAME, version: "1", chainId: CHAIN_ID, verifyingContract: token });
  const latest = () => run.viem.getBlock({ blockTag: "latest" });

  async function signPermit(
    signer: HDNodeWallet,
    token: Address,
    fields: { owner: string; spender: string; value: bigint; nonce: bigint; deadline: bigint },
  ) {
    const signature = await signer.signTypedData(
      domain(token),
      {
        Permit: [
          { name: "owner", type: "address" },
          { name: "spender", type: "address" },
          { name: "value", type: "uint256" },
          { name: "nonce", type: "uint256" },
          { name: "deadline", type: "uint256" },
        ],
      },
      fields,
    );
    const { v, r, s } = parseSignature(signature as `0x${string}`);
    return [Number(v), r, s] as const;
  }

  for (const [label, options] of [
    ["permit", { permit: true, access: "ownable" }],
    ["permit and votes, roles", { permit: true, votes: true, mintable: true }],
  ] as const) {
    describe(`ERC-2612 on the variant with ${label}`, function () {
      let token: Address;

      before(async function () {
        token = await launch(options);
      });

      it("DOMAIN_SEPARATOR is the EIP-712 domain separator of (name, version 1, chainId, the token's address)", async function () {
        expect(await read(token, "DOMAIN_SEPARATOR")).to.equal(domainSeparator({ domain: domain(token) }));
      });

      it("permit with a valid signature sets the allowance, emits Approval and increments nonces(owner); replaying it MUST revert", async function () {
        const nonce = await read<bigint>(token, "nonces", [holder.address]);
        const deadline = BigInt((await latest()).timestamp) + 3600n;
        const [v, r, s] = await signPermit(holder, token, {
          owner: holder.address,
          spender: spender.address,
          value: 500n,
          nonce,
          deadline,
        });
        // Sent by a third party: the owner needs no ether and no transaction of its own.
        const receipt = await run.send(stranger, token, ABI, "permit", [holder.address, spender.address, 500n, deadline, v, r, s]);
        expect(eventsOf(abi, receipt, token)).to.deep.equal([
          { eventName: "Approval", args: { owner: holder.address, spender: spender.address, value: 500n } },
        ]);
        expect(await read(token, "allowance", [holder.address, spender.address])).to.equal(500n);
        expect(await read(token, "nonces", [holder.address])).to.equal(nonce + 1n);
        const replay = await revertOf(
          run.viem.simulateContract({
            address: token,
            abi,
            functionName: "permit",
            args: [holder.address as Address, spender.address as Address, 500n, deadline, v, r, s],
            account: stranger.address as Address,
          }),
        );
        expect(replay.errorName, "the nonce moved on: the signature no longer recovers to the owner").to.equal("ERC2612InvalidSigner");
      });

      it("permit MUST revert once block.timestamp is past the deadline, and is accepted when it equals it", async function () {
        const nonce = await read<bigint>(token, "nonces", [holder.address]);
        const expired = BigInt((await latest()).timestamp) - 1n;
        const late = await signPermit(holder, token, {
          owner: holder.address,
          spender: spender.address,
          value: 7n,
          nonce,
          deadline: expired,
        });
        const refused = await revertOf(
          run.viem.simulateContract({
            address: token,
            abi,
            functionName: "permit",
            args: [holder.address as Address, spender.address as Address, 7n, expired, ...late],
            account: stranger.address as Address,
          }),
        );
        expect(refused).to.deep.equal({ errorName: "ERC2612ExpiredSignature", args: [expired] });
        const exact = BigInt((await latest()).timestamp) + 100n;
        const onTime = await signPermit(holder, token, {
          owner: holder.address,
          spender: spender.address,
          value: 8n,
          nonce,
          deadline: exact,
        });
        await run.node.rpc("evm_setNextBlockTimestamp", [Number(exact)]);
        const receipt = await run.send(stranger, token, ABI, "permit", [holder.address, spender.address, 8n, exact, ...onTime]);
        expect((await run.viem.getBlock({ blockNumber: receipt.blockNumber })).timestamp, "mined at the deadline itself").to.equal(exact);
        expect(await read(token, "allowance", [holder.address, spender.address])).to.equal(8n);
      });

      it("permit MUST revert for a signature by someone other than the owner, for altered fields, and for the zero address as owner", async function () {
        const nonce = await read<bigint>(token, "nonces", [holder.address]);
        const deadline = BigInt((await latest()).timestamp) + 3600n;
        const fields = { owner: holder.address, spender: spender.address, value: 9n, nonce, deadline };
        const byStranger = await signPermit(stranger, token, fields);
        const permit = (owner: string, to: string, value: bigint, signature: readonly [number, `0x${string}`, `0x${string}`]) =>
          revertOf(
            run.viem.simulateContract({
              address: token,
              abi,
              functionName: "permit",
              args: [owner as Address, to as Address, value, deadline, ...signature],
              account: stranger.address as Address,
            }),
          );
        expect(await permit(holder.address, spender.address, 9n, byStranger)).to.deep.equal({
          errorName: "ERC2612InvalidSigner",
          args: [stranger.address, holder.address],
        });
        const byHolder = await signPermit(holder, token, fields);
        expect((await permit(holder.address, spender.address, 10n, byHolder)).errorName, "value altered").to.equal("ERC2612InvalidSigner");
        expect((await permit(holder.address, stranger.address, 9n, byHolder)).errorName, "spender altered").to.equal(
          "ERC2612InvalidSigner",
        );
        const zeroOwner = await permit(ZERO, spender.address, 9n, [27, `0x${"00".repeat(32)}`, `0x${"00".repeat(32)}`]);
        expect(["ECDSAInvalidSignature", "ERC2612InvalidSigner"]).to.include(zeroOwner.errorName);
        expect(await read(token, "nonces", [holder.address]), "no refused permit used the nonce").to.equal(nonce);
      });
    });
  }

  for (const [label, options] of [
    ["votes, ownable", { votes: true, access: "ownable" }],
    ["votes and permit, roles", { votes: true, permit: true, mintable: true }],
  ] as const) {
    describe(`ERC-5805 and ERC-6372 on the variant with ${label}`, function () {
      let token: Address;
      let delegatedAt: bigint;

      before(async function () {
        token = await launch(options);
      });

      it("ERC-6372: CLOCK_MODE is mode=blocknumber&from=default and clock() is the block number it runs in", async function () {
        expect(await read(token, "CLOCK_MODE")).to.equal("mode=blocknumber&from=default");
        const head = await run.viem.getBlockNumber();
        expect(await read(token, "clock", [], head)).to.equal(Number(head));
        await run.node.rpc("evm_mine");
        expect(await read(token, "clock", [], head + 1n), "non-decreasing: one more block, one more tick").to.equal(Number(head) + 1);
      });

      it("ERC-5805: no voting power until delegated; delegate MUST emit DelegateChanged and DelegateVotesChanged; getVotes follows", async function () {
        expect(await read(token, "delegates", [holder.address])).to.equal(ZERO);
        expect(await read(token, "getVotes", [holder.address]), "holding is not voting").to.equal(0n);
        const receipt = await run.send(holder, token, ABI, "delegate", [holder.address]);
        delegatedAt = receipt.blockNumber;
        expect(eventsOf(abi, receipt, token)).to.deep.equal([
          { eventName: "DelegateChanged", args: { delegator: holder.address, fromDelegate: ZERO, toDelegate: holder.address } },
          { eventName: "DelegateVotesChanged", args: { delegate: holder.address, previousVotes: 0n, newVotes: INITIAL } },
        ]);
        expect(await read(token, "delegates", [holder.address])).to.equal(holder.address);
        expect(await read(token, "getVotes", [holder.address])).to.equal(INITIAL);
      });

      it("ERC-5805: a transfer moves voting power between delegates, each change a DelegateVotesChanged event", async function () {
        await run.send(spender, token, ABI, "delegate", [delegatee.address]);
        const receipt = await run.send(holder, token, ABI, "transfer", [spender.address, 1000n]);
        expect(eventsOf(abi, receipt, token).filter((event) => event.eventName === "DelegateVotesChanged")).to.deep.equal([
          { eventName: "DelegateVotesChanged", args: { delegate: holder.address, previousVotes: INITIAL, newVotes: INITIAL - 1000n } },
          { eventName: "DelegateVotesChanged", args: { delegate: delegatee.address, previousVotes: 0n, newVotes: 1000n } },
        ]);
        expect(await read(token, "getVotes", [delegatee.address])).to.equal(1000n);
        expect(await read(token, "getVotes", [spender.address]), "a holder who delegated away has none of its own").to.equal(0n);
      });

      it("ERC-5805: getPastVotes answers past timepoints and MUST revert for one that is not yet past (clock() and later)", async function () {
        await run.node.rpc("evm_mine");
        expect(await read(token, "getPastVotes", [holder.address, delegatedAt - 1n]), "before the delegation").to.equal(0n);
        expect(await read(token, "getPastVotes", [holder.address, delegatedAt]), "at the delegation's block").to.equal(INITIAL);
        const head = await run.viem.getBlockNumber();
        const now = await read<number>(token, "clock", [], head);
        const refused = await revertOf(
          run.viem.readContract({
            address: token,
            abi,
            functionName: "getPastVotes",
            args: [holder.address as Address, BigInt(now)],
            blockNumber: head,
          }),
        );
        expect(refused).to.deep.equal({ errorName: "ERC5805FutureLookup", args: [BigInt(now), now] });
      });

      it("ERC-5805: delegateBySig delegates for the signer and uses its nonce; expired or replayed signatures MUST revert", async function () {
        const signer = run.wallet(5);
        const nonce = await read<bigint>(token, "nonces", [signer.address]);
        const sign = async (expiry: bigint) => {
          const signature = await signer.signTypedData(
            domain(token),
            {
              Delegation: [
                { name: "delegatee", type: "address" },
                { name: "nonce", type: "uint256" },
                { name: "expiry", type: "uint256" },
              ],
            },
            { delegatee: delegatee.address, nonce, expiry },
          );
          const { v, r, s } = parseSignature(signature as `0x${string}`);
          return [Number(v), r, s] as const;
        };
        const expired = BigInt((await latest()).timestamp) - 1n;
        const late = await sign(expired);
        const refused = await revertOf(
          run.viem.simulateContract({
            address: token,
            abi,
            functionName: "delegateBySig",
            args: [delegatee.address as Address, nonce, expired, ...late],
            account: stranger.address as Address,
          }),
        );
        expect(refused).to.deep.equal({ errorName: "VotesExpiredSignature", args: [expired] });
        const expiry = BigInt((await latest()).timestamp) + 3600n;
        const signature = await sign(expiry);
        const receipt = await run.send(stranger, token, ABI, "delegateBySig", [delegatee.address, nonce, expiry, ...signature]);
        expect(eventsOf(abi, receipt, token)).to.deep.equal([
          { eventName: "DelegateChanged", args: { delegator: signer.address, fromDelegate: ZERO, toDelegate: delegatee.address } },
        ]);
        expect(await read(token, "delegates", [signer.address])).to.equal(delegatee.address);
        expect(await read(token, "nonces", [signer.address])).to.equal(nonce + 1n);
        const replay = await revertOf(
          run.viem.simulateContract({
            address: token,
            abi,
            functionName: "delegateBySig",
            args: [delegatee.address as Address, nonce, expiry, ...signature],
            account: stranger.address as Address,
          }),
        );
        expect(replay).to.deep.equal({ errorName: "InvalidAccountNonce", args: [signer.address, nonce + 1n] });
      });
    });
  }
});
