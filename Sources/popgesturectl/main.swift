print("popgesturectl")
