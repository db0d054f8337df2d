/**
 * How the variant bundles (src/artifacts/variants/) store bytecode: every PUSH2 operand as its distance from the
 * instruction, modulo 2^16, instead of its value. A kind's variants share most of their code at shifted offsets, so
 * their jump targets (PUSH2 operands, nearly all) differ from variant to variant while the distances repeat, and Brotli
 * finds the repeats: the three bundles weigh 176 kB instead of 260 kB (docs/decisions/0059-package-contents.md).
 *
 * Opcodes are left as they are, so encoding and decoding walk the same instructions and step over the same operands:
 * one is the other's exact inverse, whatever the bytes mean (the metadata after the code included).
 */
export const PUSH2_RELATIVE = "push2-relative";

const PUSH1 = 0x60;
const PUSH2 = 0x61;
const PUSH32 = 0x7f;

function shifted(bytecode: string, sign: 1 | -1): string {
  const code = Buffer.from(bytecode.startsWith("0x") ? bytecode.slice(2) : bytecode, "hex");
  for (let at = 0; at < code.length; at++) {
    const opcode = code[at]!;
    if (opcode < PUSH1 || opcode > PUSH32) continue;
    // A PUSH2 cut short by the end of the code keeps its bytes as they are, both ways.
    if (opcode === PUSH2 && at + 2 < code.length) code.writeUInt16BE((code.readUInt16BE(at + 1) - sign * at + 0x10000) & 0xffff, at + 1);
    at += opcode - PUSH1 + 1;
  }
  return `0x${code.toString("hex")}`;
}

/** The bundle's form of `bytecode` (scripts/build-token-variants.ts). */
export const toPush2Relative = (bytecode: string): string => shifted(bytecode, 1);

/** The deployable bytecode back from its bundle form. */
export const fromPush2Relative = (stored: string): string => shifted(stored, -1);
