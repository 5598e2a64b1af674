declare module 'whatwg-mimetype' {
  export class MIMEType {
    constructor(s: string);
    static parse(s: string): MIMEType | null;
    readonly essence: string;
    readonly parameters: Map<string, string>;
  }
}
