// class: J10 expect: reject effect: write rule: underscore
_write_file("@@OUTSIDE@@", "pwned by a direct call");
