// The stored domain's codec: strict decoders and deterministic encoders for the version-1
// document, its task rows, records, receipts and history, and the journal's batch lines with their
// delivery deltas.
export { type DomainBatch, decodeBatch, encodeBatch, repeatedId } from './batch.ts';
export {
  applyDeliveryDelta,
  type DeliveryDelta,
  decodeDeliveryDelta,
  deliveredRowOf,
  deliveryDeltaOf,
  encodeDeliveryDelta,
} from './delta.ts';
export {
  DOCUMENT_VERSION,
  type DomainSnapshot,
  decodeDocument,
  decodeDocumentText,
  decodeTzdata,
  encodeDocument,
  encodeDocumentChunks,
  nextTaskNumberAfter,
  parseJson,
  taskNumber,
} from './document.ts';
export {
  decodeHistory,
  decodeReceipt,
  encodeHistory,
  encodeReceipt,
  MAX_MESSAGE_ID_LENGTH,
  type PromptContext,
  type PromptRef,
  sameReceipt,
} from './receipt.ts';
export { decodeRecord, encodeRecord, KIND_FIELDS, MIN_EVERY_SECONDS } from './record.ts';
export { decodeRow, encodeRow, encodeRowObject, MAX_SESSION_ID_LENGTH, rowWhere } from './row.ts';
