#include <iostream>
#include <stdexcept>
#include <string>
int main() {
  std::string line;
  int requests = 0;
  while (std::getline(std::cin, line)) {
    if (line.find("\"type\":\"start\"") != std::string::npos) { std::cout << "{\"type\":\"ready\"}" << std::endl; }
    else if (line.find("\"type\":\"request\"") != std::string::npos) {
      std::cerr << "request " << ++requests << std::endl;
      if (requests == 2) throw std::runtime_error("no legal action left");
      std::cout << "{\"type\":\"action\",\"index\":0}" << std::endl;
    }
  }
}
