// want: found 3 4\nskipped rows: 1
const grid = [
  [1, 2],
  [3, 4],
  [5, 6],
];
let found = "none";
search: for (let r = 0; r < grid.length; r++) {
  for (let c = 0; c < grid[r].length; c++) {
    if (grid[r][c] * grid[r][c + 1] === 12) {
      found = `${grid[r][c]} ${grid[r][c + 1]}`;
      break search;
    }
  }
}
print("found", found);
let skipped = 0;
rows: for (const row of grid) {
  for (const v of row) {
    if (v === 2) {
      skipped++;
      continue rows;
    }
  }
}
print("skipped rows:", skipped);
