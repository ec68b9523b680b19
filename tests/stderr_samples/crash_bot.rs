use std::io::BufRead;
fn main() {
    let stdin = std::io::stdin();
    let mut requests = 0;
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        if line.contains("\"type\":\"start\"") { println!("{{\"type\":\"ready\"}}"); }
        else if line.contains("\"type\":\"request\"") {
            requests += 1;
            eprintln!("request {}", requests);
            let moves: Vec<u32> = Vec::new();
            if requests == 2 { let _ = moves[3]; }
            println!("{{\"type\":\"action\",\"index\":0}}");
        }
    }
}
