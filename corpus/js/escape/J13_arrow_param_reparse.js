// class: J13 expect: reject effect: hang rule: depth
// goja reads an arrow's parameter list twice, so lists nested in defaults cost 2^k: 2^30 here.
const f = (a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=(a=0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0)=>0
