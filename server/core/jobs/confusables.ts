/**
 * Letters of other scripts that look like Latin ones, and what they look like: the part of Unicode's
 * confusables (UTS #39, "Unicode Security Mechanisms", confusables.txt) that names.ts's skeleton
 * needs to see a reserved name in another script's letters. Kept small on purpose: the Cyrillic and
 * Greek letters, and Latin's own small capitals and variants, whose entry in confusables.txt is a
 * single Latin letter (a–z, A–Z). Fullwidth (`ｃ`) and mathematical (`𝐜`) letters are not here:
 * NFKC, taken first, makes them Latin already. A reserved name of letters outside a–z would need
 * its lookalikes added here.
 */

/** Each line: a Latin letter, then the letters of confusables.txt that map to it. */
const TABLE = [
  "a аα",
  "A АΑ",
  "b Ьƅ",
  "B ВΒ",
  "c сϲᴄ",
  "C СϹ",
  "d ԁ",
  "e еҽ",
  "E ЕΕ",
  "g ɡԍ",
  "G Ԍ",
  "h һ",
  "H НΗ",
  "i іıιɩ",
  "I ІΙ",
  "j јϳ",
  "J ЈͿ",
  "K КΚ",
  "l ӏ",
  "M МΜ",
  "N Ν",
  "o оοσᴏ",
  "O ОΟ",
  "p рρ",
  "P РΡ",
  "q ԛ",
  "r г",
  "s ѕ",
  "S Ѕ",
  "T ТΤ",
  "u υʋ",
  "v νѵ",
  "w ԝ",
  "x хχ",
  "X ХΧ",
  "y уγ",
  "Y УΥҮ",
  "z ᴢ",
  "Z Ζ",
];

/** A lookalike letter → the Latin letter it looks like. */
export const CONFUSABLES: ReadonlyMap<string, string> = new Map(
  TABLE.flatMap((line) => {
    const [latin, lookalikes] = line.split(" ") as [string, string];
    return [...lookalikes].map((c) => [c, latin] as const);
  }),
);
