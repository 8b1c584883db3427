print("popgestured")
