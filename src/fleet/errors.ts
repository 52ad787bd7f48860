/** A fleet operation that cannot be done as asked: the message says what is wrong and what to do. */
export class FleetError extends Error {
  override readonly name = 'FleetError';
}
