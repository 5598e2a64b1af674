// negotiator 1.1 ships no types, and @types/negotiator (0.6) lacks the `preferred` option of 1.x.
declare module 'negotiator' {
  class Negotiator {
    constructor(req: { headers: Readonly<Record<string, string | readonly string[] | undefined>> });
    /** The client's most preferred of `available`; ties go to the first of `preferred`. */
    encoding(available: readonly string[], options?: { preferred?: readonly string[] }): string | undefined;
  }
  export = Negotiator;
}
