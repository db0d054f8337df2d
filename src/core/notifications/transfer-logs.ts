import { dataSlice, getAddress, Interface, toBigInt, type LogDescription } from "ethers";

// The token transfers a log records: ERC-20 and ERC-721 `Transfer` (told apart by where the amount or id is: ERC-721
// indexes its token id, a fourth topic), and ERC-1155 `TransferSingle` and `TransferBatch` (one movement per id). A
// log that has a transfer's topic but not its layout (any contract may emit one) records none: it is skipped, not
// guessed at.
//
// The three events of fixed layout are read word by word with ethers' byte helpers, as ethers' ABI decoder reads them
// (an address word with bits above its 160th set is no address; a missing word is no transfer): through
// `Interface.parseLog` a log cost about 140 µs, mostly finding the fragment by its topic and building the decoder's
// result, and a backfill decodes thousands. `TransferBatch`, whose arrays are dynamic, goes through the decoder.

/** A log as a block's receipts (or eth_getLogs) give it. */
export interface ChainLog {
  address: string;
  topics: readonly string[];
  data: string;
  transactionHash: string;
  logIndex: number;
}

/** A movement of a token, as one transfer log records it. */
export interface TokenMovement {
  asset: "erc20" | "erc721" | "erc1155";
  contract: string;
  from: string;
  to: string;
  /** ERC-20 and ERC-1155: how much, in the token's smallest units (decimal). */
  amount: string | null;
  /** ERC-721 and ERC-1155: which token id (decimal). */
  tokenId: string | null;
  /** An ERC-1155 batch's position of the id; null for every other log. */
  batchIndex: number | null;
}

const TRANSFER = new Interface([
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)",
  "event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)",
]);

/** The topics of the three transfer events: what an `eth_getLogs` filter for token activity asks for. */
export const TRANSFER_TOPICS = {
  transfer: TRANSFER.getEvent("Transfer")!.topicHash,
  transferSingle: TRANSFER.getEvent("TransferSingle")!.topicHash,
  transferBatch: TRANSFER.getEvent("TransferBatch")!.topicHash,
} as const;

/** The token movements a log records; none when it is no transfer, or is one in name only. */
export function movementsOf(log: ChainLog): TokenMovement[] {
  const topic = log.topics[0]?.toLowerCase();
  const contract = log.address;
  // A node answers 32-byte topics; anything else is not a log to read.
  if (log.topics.some((word) => word.length !== 66)) return [];
  try {
    if (topic === TRANSFER_TOPICS.transfer) {
      const [from, to] = [topicAddress(log.topics[1]), topicAddress(log.topics[2])];
      if (log.topics.length === 4 && log.data === "0x") {
        const tokenId = toBigInt(word(log.topics[3]!, 0)).toString();
        return [{ asset: "erc721", contract, from, to, amount: null, tokenId, batchIndex: null }];
      }
      if (log.topics.length !== 3) return [];
      return [{ asset: "erc20", contract, from, to, amount: toBigInt(word(log.data, 0)).toString(), tokenId: null, batchIndex: null }];
    }
    if (topic === TRANSFER_TOPICS.transferSingle && log.topics.length === 4) {
      const [from, to] = [topicAddress(log.topics[2]), topicAddress(log.topics[3])];
      const [id, value] = [toBigInt(word(log.data, 0)), toBigInt(word(log.data, 1))];
      return [{ asset: "erc1155", contract, from, to, amount: value.toString(), tokenId: id.toString(), batchIndex: null }];
    }
    if (topic === TRANSFER_TOPICS.transferBatch && log.topics.length === 4) {
      // By position: `values` is also a method of ethers' Result.
      const args = parse(TRANSFER, log).args;
      const [from, to] = [args[1] as string, args[2] as string];
      const idList = [...(args[3] as bigint[])];
      const valueList = [...(args[4] as bigint[])];
      if (idList.length !== valueList.length) return [];
      return idList.map((tokenId, batchIndex) => ({
        asset: "erc1155" as const,
        contract,
        from,
        to,
        amount: valueList[batchIndex]!.toString(),
        tokenId: tokenId.toString(),
        batchIndex,
      }));
    }
  } catch {
    // The topic of a transfer over data that is not one: no movement.
  }
  return [];
}

function parse(abi: Interface, log: ChainLog): LogDescription {
  const parsed = abi.parseLog({ topics: [...log.topics], data: log.data });
  if (parsed === null) throw new Error("not this event");
  return parsed;
}

/** The `index`th 32-byte word of `data`; throws when `data` ends before it. */
function word(data: string, index: number): string {
  if (data.length < 2 + (index + 1) * 64) throw new Error("no such word");
  return dataSlice(data, index * 32, (index + 1) * 32);
}

/**
 * The address an indexed topic holds, checksummed; throws when the log has no such topic or it has bits set above an
 * address's 160 (what ethers' decoder refuses too). Every topic is a 32-byte word: movementsOf checked them.
 */
function topicAddress(topic: string | undefined): string {
  if (topic === undefined || toBigInt(topic) >> 160n !== 0n) throw new Error("no address");
  const lower = `0x${topic.slice(26).toLowerCase()}`;
  let checksummed = CHECKSUMMED.get(lower);
  if (checksummed === undefined) {
    // A checksum is a keccak256 in JavaScript (about 18 µs); the same few addresses recur across a scan's logs.
    if (CHECKSUMMED.size >= CHECKSUM_CACHE_SIZE) CHECKSUMMED.clear();
    checksummed = getAddress(lower);
    CHECKSUMMED.set(lower, checksummed);
  }
  return checksummed;
}

const CHECKSUM_CACHE_SIZE = 4_096;
const CHECKSUMMED = new Map<string, string>();
