// class: J8 expect: reject effect: read rule: escaped-name
// \u005f is "_": this is a direct call to the hidden host reader.
print(\u005fread_file("@@CANARY@@"));
