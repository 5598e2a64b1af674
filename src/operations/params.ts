/** Parameter types of the interface, as the WSDL declares them. */
export type ParamType = 'int' | 'string';

export interface ParamSpec {
  name: string;
  type: ParamType;
  /** Absent = MissingParameter; otherwise absent means empty text. */
  required: boolean;
  maxLength?: number;
  /** Smallest accepted value of an int. */
  min?: number;
}

export type RawParams = Record<string, string | undefined>;
/** Any operation's decoded parameters, by name (what a cache key is made of). */
export type Params = Readonly<Record<string, number | string>>;
