// want: 14 2 3 4 5 6 7
// Identifiers that merely contain denied words.
const evaluate = (a, b) => a * b + 2;
const evalScore = evaluate(3, 4);
const processed = 2;
const requirement = 3;
const globalCount = 4;
const windowSize = 5;
const moduleCount = 6;
const selfTest = () => 7;
print(evalScore, processed, requirement, globalCount, windowSize, moduleCount, selfTest());
