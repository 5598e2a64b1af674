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
export type Params = Record<string, number | string>;
