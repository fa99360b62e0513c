// class: J4 expect: reject effect: connect rule: host-access
const net = require("net");
const sock = net.connect(Number("@@PORT@@"), "@@HOST@@");
sock.write("hello from the sandbox\n");
