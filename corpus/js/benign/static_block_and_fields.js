// want: ready 3 light
class Config {
  static defaults = { theme: "light", size: 3 };
  static ready = false;
  static {
    Config.ready = true;
  }
  size = Config.defaults.size;
}
const c = new Config();
print(Config.ready ? "ready" : "not ready", c.size, Config.defaults.theme);
