// class: J3 expect: reject effect: read rule: global-object
{
  var global;
}
print(global.process.env.HOME);
