/**
 * A result that is already serialized. The engine splices `json` into the response frame instead of
 * calling JSON.stringify, which is how cached list pages are served without re-serializing.
 */
export class RawJson {
  constructor(readonly json: string) {}
}
