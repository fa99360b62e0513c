// class: J13 expect: reject effect: hang rule: depth
// REDTEAM: each level's '(' starts a statement after `debugger` and a line break (ASI): goja
// reads the list twice per level (2^22 here, about 20 s; each level more doubles it); the
// pre-scan takes `debugger` for a name and the '(' for a call, so it counts no re-read.
debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
(a = () => {debugger
0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
}) => 0
