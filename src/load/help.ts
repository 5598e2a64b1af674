import { FILES, type FileSpec } from './files';

const WIDTH = 100;
const INDENT = 26;

/** `svapi load --help`: the dataset format, written from the file specs the loader checks against. */
export function datasetHelp(): string {
  return `
A dataset is a folder of UTF-8 CSV files. Each file has a header row naming its columns: every
column of its kind, no others, in any order. Any file may be absent: nothing of that kind
changes; a .csv file not listed below is refused. An empty cell is null; only the columns
marked * may be empty.

Files and columns:
${FILES.map(fileLine).join('\n')}

Values: ints are 32-bit; decimals are plain decimal text, stored exactly as written; booleans
true/false/1/0; TimeStamp is ISO 8601 with an offset or Z.

Records are upserted by their ID (the first column). A weapon's rows in weapon_damage.csv
replace that weapon's rows; a hunting_globals.csv row is added unless the same row is there.
With --replace, records of each kind whose file is present that the dataset lacks are removed.

Every file is checked before anything is written. Problems are listed as
file:line: column: reason, and then nothing is written (exit code 1).

Examples:
  svapi load seeds/data                 # the sample dataset
  svapi load ./export --replace         # also remove what the export lacks, for the kinds it has
`;
}

function fileLine(spec: FileSpec): string {
  const words = spec.columns.map((c, i) => `${c.name}${c.nullable ? '*' : ''}${i < spec.columns.length - 1 ? ',' : ''}`);
  const lines = [`  ${spec.file}`.padEnd(INDENT)];
  for (const word of words) {
    const last = lines.length - 1;
    if (lines[last].length > INDENT && lines[last].length + 1 + word.length > WIDTH) lines.push(' '.repeat(INDENT));
    lines[lines.length - 1] += `${lines[lines.length - 1].length > INDENT ? ' ' : ''}${word}`;
  }
  return lines.join('\n');
}
