package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	requests := 0
	var legal []int
	for in.Scan() {
		line := in.Text()
		if strings.Contains(line, `"type":"start"`) {
			fmt.Println(`{"type":"ready"}`)
		} else if strings.Contains(line, `"type":"request"`) {
			requests++
			fmt.Fprintf(os.Stderr, "request %d\n", requests)
			if requests == 2 {
				fmt.Println(legal[3])
			}
			fmt.Println(`{"type":"action","index":0}`)
		}
	}
}
